'use strict';
const { chooseOption, visibleParameters, openNode, settle } = require('../browser');
const { CREDENTIAL_ID, CREDENTIAL_NAME } = require('../env');

const rlcItems = (page) => page.getByTestId('rlc-item').allInnerTexts();
const conversationRequests = (sandbox) =>
	sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/conversations');

/** From List pickers: the service's conversations with their labels, search, a second page; messages of the chosen conversation. */
module.exports = {
	title:
		'pickers: conversations listed with labels, search narrows, paging past one page; messages of the chosen conversation',
	async run(t) {
		const { page, url, sandbox } = t;
		const workflowId = await t.createWorkflow('UI: pickers', [
			{
				id: 'send',
				name: 'Send',
				type: 'n8n-nodes-messaging.messaging',
				typeVersion: 2,
				position: [0, 0],
				parameters: { resource: 'message', operation: 'send' },
				credentials: { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			},
		]);
		await openNode(page, url, workflowId, 'send');
		sandbox.clearRequests();
		const locator = page.getByTestId('resource-locator-conversationId');
		await locator.getByTestId('rlc-input').click();
		const total = sandbox.store.conversations.size;
		const listed = await settle(
			() => rlcItems(page),
			(items) => items.length >= total,
			15_000,
		);
		t.log(
			`${listed.length} of ${total} conversations listed after ${conversationRequests(sandbox).length} request(s); first: ${listed.slice(0, 2).join(' | ')}`,
		);
		for (const label of [
			'Contact ct_ann (pinned)',
			'Contact ct_bob (muted)',
			'Contact ct_cy (archived)',
			'Group grp_team',
		]) {
			t.expect(
				listed.some((l) => l.startsWith(label)),
				`a conversation labelled "${label} · …" is listed`,
			);
		}
		t.expect(
			listed.length === total,
			`all ${total} conversations are listed (more than one page of 100), got ${listed.length}`,
		);
		t.expect(
			conversationRequests(sandbox).some((r) => /starting_after=/.test(r.query)),
			'the second page was asked for with starting_after',
		);
		t.expect(new Set(listed).size === listed.length, 'no conversation is listed twice');
		await page
			.getByTestId('rlc-item')
			.filter({ hasText: 'ct_ann (pinned)' })
			.scrollIntoViewIfNeeded();
		await t.shot('conversations', `Conversation picker: ${listed.length} conversations, paged`);

		const search = page.getByTestId('rlc-search');
		const needle = 'customer_10';
		const wanted = [...sandbox.store.conversations.values()].filter((c) =>
			String(c.contact_id).includes(needle),
		).length;
		await search.fill(needle);
		const narrowed = await settle(
			() => rlcItems(page),
			(items) => items.length === wanted && items.every((i) => i.includes(needle)),
			10_000,
		);
		t.expect(
			narrowed.length === wanted && narrowed.every((i) => i.includes(needle)),
			`search "${needle}" lists the ${wanted} matching conversations, got ${narrowed.length}: ${narrowed.join(' | ')}`,
		);
		await t.shot('search', `Conversation picker: search "${needle}"`);

		// A match that is only on the service's second page must be found too.
		await search.fill('ann');
		const ann = await settle(
			() => rlcItems(page),
			(items) => items.some((i) => i.includes('ct_ann')),
			10_000,
		);
		t.expect(
			ann.some((i) => i.includes('ct_ann')),
			`search "ann" finds ann's conversation (on the service's second page); the picker shows ${ann.length ? ann.join(' | ') : '"No results"'}`,
		);
		await t.shot('search-ann', 'Conversation picker: search "ann"');
		await search.fill('');
		await settle(
			() => rlcItems(page),
			(items) => items.length >= total,
			15_000,
		);
		const annItem = page.getByTestId('rlc-item').filter({ hasText: 'ct_ann (pinned)' });
		await annItem.click();
		const chosen = await settle(
			() => locator.getByTestId('rlc-input').inputValue(),
			(v) => v !== '',
		);
		t.expect(
			/ct_ann/.test(chosen),
			`the chosen conversation shows its label, not only its id: "${chosen}"`,
		);
		await t.shot('chosen', 'Conversation picker: ann’s conversation chosen');

		// The Message picker: in the operations that pick a message, narrowed to a chosen conversation.
		await chooseOption(page, 'operation', 'Get');
		const fields = (await visibleParameters(page)).map((f) => f.name);
		const annConversation = [...sandbox.store.conversations.values()].find(
			(c) => c.contact_id === 'ct_ann',
		).id;
		const annTexts = sandbox.store
			.listMessages({ conversation_id: annConversation })
			.map((m) => m.message);
		const allTexts = [...sandbox.store.messages.values()].map((m) => m.message);
		const canChoose = fields.includes('conversationId');
		t.expect(
			canChoose,
			`Message → Get offers a Conversation to narrow the Message picker (fields: ${fields.join(', ')}); without it the picker lists the messages of every conversation`,
		);
		await page.getByTestId('resource-locator-messageId').getByTestId('rlc-input').click();
		const messages = await settle(
			() => rlcItems(page),
			(items) => items.length > 0,
			10_000,
		);
		t.log(`Message picker lists ${messages.length}: ${messages.slice(0, 4).join(' | ')}`);
		t.expect(
			messages.length > 0 &&
				messages.every((m) => allTexts.some((text) => m.includes(text.slice(0, 40)))),
			'the Message picker lists the service’s messages as "sender: text"',
		);
		if (canChoose) {
			t.expect(
				messages.every((m) => annTexts.some((text) => m.includes(text.slice(0, 40)))),
				`only the chosen conversation's messages: ${messages.join(' | ')}`,
			);
		}
		await t.shot('messages', `Message picker (Message → Get): ${messages.length} messages`);
		await page.keyboard.press('Escape');
	},
};
