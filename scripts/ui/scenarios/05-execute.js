'use strict';
const { openNode } = require('../browser');
const { CREDENTIAL_ID, CREDENTIAL_NAME, newestFirst } = require('../env');

const node = (id, name, position, parameters) => ({
	id,
	name,
	type: 'n8n-nodes-messaging.messaging',
	typeVersion: 2,
	position,
	parameters,
	credentials: { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
});
const byId = (value) => ({ __rl: true, mode: 'id', value });

/** Execute step in the editor: the output pane shows the items; an unknown id shows the service's text and no token. */
module.exports = {
	title:
		'execute from the editor: Send and Get Many show their items and one limit hint; Get of an unknown id shows the service’s text, no token',
	async run(t) {
		const { page, url, sandbox, token } = t;
		const conversation = 'conv_00000005';
		const text = `Hello from the editor ${Date.now()}`;
		const workflowId = await t.createWorkflow(
			'UI: execute',
			[
				{
					id: 'start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				node('send', 'Send', [240, -200], {
					resource: 'message',
					operation: 'send',
					conversationId: byId(conversation),
					text,
				}),
				node('getmany', 'Get Many', [240, 0], {
					resource: 'message',
					operation: 'getAll',
					limit: 2,
					filters: { conversationId: byId(conversation) },
				}),
				node('getmissing', 'Get Missing', [240, 200], {
					resource: 'message',
					operation: 'get',
					messageId: byId('msg_missing_ui'),
				}),
				{
					id: 'twoitems',
					name: 'Two Items',
					type: 'n8n-nodes-base.noOp',
					typeVersion: 1,
					position: [240, 400],
					parameters: {},
				},
				node('getmanytwo', 'Get Many Per Item', [480, 400], {
					resource: 'message',
					operation: 'getAll',
					limit: 2,
					filters: { conversationId: byId(conversation) },
				}),
			],
			{
				Start: {
					main: [
						[
							{ node: 'Send', type: 'main', index: 0 },
							{ node: 'Get Many', type: 'main', index: 0 },
							{ node: 'Get Missing', type: 'main', index: 0 },
							{ node: 'Two Items', type: 'main', index: 0 },
						],
					],
				},
				'Two Items': { main: [[{ node: 'Get Many Per Item', type: 'main', index: 0 }]] },
			},
			{ pinData: { 'Two Items': [{ json: { n: 1 } }, { json: { n: 2 } }] } },
		);
		const output = page.getByTestId('output-panel');

		await openNode(page, url, workflowId, 'send');
		await page.getByTestId('node-execute-button').click();
		await output.getByText(text).first().waitFor();
		const stored = sandbox.store
			.listMessages({ conversation_id: conversation })
			.find((m) => m.message === text);
		t.assert.ok(stored, 'the message reached the service');
		const sendOutput = await output.innerText();
		t.expect(
			sendOutput.includes(stored.id),
			`the output pane shows the new message's id ${stored.id}`,
		);
		t.expect(
			/1 item/.test(sendOutput),
			`the output pane says "1 item": ${sendOutput.slice(0, 200)}`,
		);
		await t.shot('send', 'Execute step: Send, the output pane');

		await openNode(page, url, workflowId, 'getmany');
		await page.getByTestId('node-execute-button').click();
		await output
			.getByText(/2 items/)
			.first()
			.waitFor();
		const newest = newestFirst(sandbox.store.listMessages({ conversation_id: conversation })).slice(
			0,
			2,
		);
		const manyOutput = await t.settle(
			() => output.innerText(),
			(shown) => newest.every((m) => shown.includes(m.id)),
		);
		for (const m of newest)
			t.expect(manyOutput.includes(m.id), `Get Many shows ${m.id} (one of the 2 newest)`);
		// One hint where n8n gives one: its own "Limit of 2 items reached", not ours beside it.
		const n8nHint = output.getByText(/Limit of 2 items reached/);
		const ourHint = output.getByText(/More messages exist than the limit/);
		await n8nHint
			.first()
			.waitFor({ state: 'visible', timeout: 5_000 })
			.catch(() => {});
		t.expect(
			(await n8nHint.count()) === 1,
			`n8n's "Limit of 2 items reached" shows once (${await n8nHint.count()})`,
		);
		t.expect((await ourHint.count()) === 0, `no second hint of ours (${await ourHint.count()})`);
		await t.shot('get-many', 'Execute step: Get Many with Limit 2, items and n8n’s limit hint');

		// Two input items: 4 items out, so n8n says nothing and ours names each item.
		await openNode(page, url, workflowId, 'getmanytwo');
		await page.getByTestId('node-execute-button').click();
		await output
			.getByText(/4 items/)
			.first()
			.waitFor();
		const perItem = await t.settle(
			() => output.getByText(/More messages exist than the limit of 2 \[item \d\]/).allInnerTexts(),
			(texts) => texts.length === 2,
		);
		t.expect(
			perItem.length === 2 && /\[item 0\]/.test(perItem[0]) && /\[item 1\]/.test(perItem[1]),
			`our hint names item 0 and item 1: ${JSON.stringify(perItem)}`,
		);
		t.expect(
			(await n8nHint.count()) === 0,
			`n8n's limit hint does not show for 4 items (${await n8nHint.count()})`,
		);
		await t.shot('get-many-per-item', 'Execute step: Get Many for two items, our hint per item');

		await openNode(page, url, workflowId, 'getmissing');
		await page.getByTestId('node-execute-button').click();
		const serviceText = 'No such message: msg_missing_ui';
		await output.getByText(serviceText).first().waitFor();
		const errorText = await output.innerText();
		t.log(`error pane: ${errorText.replace(/\s+/g, ' ').slice(0, 300)}`);
		t.expect(/Not found/.test(errorText), 'the error names the failure ("Not found")');
		const html = await page.content();
		t.expect(!html.includes(token), 'the page does not contain the access token');
		await t.shot('get-unknown', 'Execute step: Get of an unknown id, the error');
	},
};
