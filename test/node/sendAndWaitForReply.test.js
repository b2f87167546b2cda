'use strict';
/**
 * Send and Wait for Reply through n8n-core's WorkflowExecute against the sandbox: the message on the wire,
 * which later message is the reply, both list orders and services that page or order oddly. Time-out,
 * cancellation, rate limits and bad input are in sendAndWaitForReplyLimits.test.js.
 */
const { startMessagingRun } = require('../harness/n8n');
const { byId, wire } = require('../harness/sandbox');
const {
	INBOX,
	OTHER,
	sentText,
	startReplyInbox,
	parameters,
	replyHelpers,
} = require('../harness/sendAndWaitForReply');

let sandbox;
let credentials;
let store;
beforeEach(async () => {
	({ sandbox, credentials, store } = await startReplyInbox());
});
afterEach(() => sandbox.stop());

const { sentMessage, checks, whenAsked, ask } = replyHelpers(() => ({
	sandbox,
	credentials,
	store,
}));

describe('Send and Wait for Reply', () => {
	test('sends, then outputs { sent, reply, timedOut: false } with the first message from someone else', async () => {
		const { items, error } = await ask({}, () =>
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'M please' }),
		);
		expect(error).toBeUndefined();
		const requests = wire(sandbox);
		expect(requests.slice(0, 2)).toEqual([
			{ method: 'GET', url: `/v1/conversations/${INBOX}`, body: '' },
			{
				method: 'POST',
				url: '/v1/messages',
				body: `conversation_id=${INBOX}&message=Which%20size%2C%20S%20or%20M%3F`,
			},
		]);
		// Newest first: every check reads from the top of the conversation, one request while nothing came.
		expect(
			requests.slice(2).every((r) => r.url === `/v1/messages?conversation_id=${INBOX}&limit=50`),
		).toBe(true);
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		const { sent, reply, timedOut } = items[0].json;
		expect(timedOut).toBe(false);
		expect(sent).toMatchObject({
			id: sentMessage().id,
			message: sentText,
			contact: { id: 'ct_me' },
		});
		expect(reply).toMatchObject({
			conversation_id: INBOX,
			message: 'M please',
			contact: { id: 'ct_ann' },
		});
	});

	test.each(['newest_first', 'oldest_first'])(
		'a service whose ids are numbers (%s): the reply is found and the question sent once',
		async (order) => {
			sandbox.set({ order, quirks: { numericIds: true } });
			const { items, error } = await ask({ conversationId: byId('1') }, () =>
				store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'M please' }),
			);
			expect(error).toBeUndefined();
			expect(sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
			expect(items[0].json).toMatchObject({
				timedOut: false,
				sent: { id: '3', conversation_id: 1, message: sentText },
				reply: { id: '4', conversation_id: 1, message: 'M please' },
			});
		},
	);

	test('a service that refuses pages above 20 (400): the checks ask for 20 after one refusal', async () => {
		sandbox.set({ maxPageSize: 20, quirks: { refuseLargePages: true } });
		const { items, error } = await ask({}, () =>
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'M please' }),
		);
		expect(error).toBeUndefined();
		expect(items[0].json.reply).toMatchObject({ message: 'M please' });
		const limits = checks().map((r) => `${r.status} ${r.query.match(/limit=\d+/)[0]}`);
		expect(limits[0]).toBe('400 limit=50');
		expect(new Set(limits.slice(1))).toEqual(new Set(['200 limit=20']));
	});

	test('own messages, other conversations and the history do not count; the earliest reply wins', async () => {
		const { items } = await ask({}, () => {
			store.sendMessage('ct_me', { conversation_id: INBOX, message: 'also: we close at 6' });
			store.sendMessage('ct_bob', { conversation_id: OTHER, message: 'S (wrong conversation)' });
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'first real answer' });
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'second answer' });
		});
		expect(items[0].json.reply).toMatchObject({
			message: 'first real answer',
			contact: { id: 'ct_ann' },
		});
	});

	test('skips messages of the credential’s own contact (by username) and takes the next one', async () => {
		credentials.ownContactId = 'me';
		const run = startMessagingRun({ parameters: parameters(), credentials });
		await whenAsked(() => {
			store.sendMessage('ct_me', { conversation_id: INBOX, message: 'mine' });
			store.sendMessage('ct_bob', { conversation_id: OTHER, message: 'elsewhere' });
		});
		const afterOwn = checks().length;
		await whenAsked(() => {
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'first real answer' });
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'second answer' });
		}, afterOwn + 2);
		const { items } = await run.done;
		expect(items[0].json.reply.message).toBe('first real answer');
	});

	test('Only From Contact and Reply Must Match skip the other messages and keep waiting', async () => {
		const run = startMessagingRun({
			parameters: parameters({
				options: { fromContact: '@ann', replyPattern: '/^\\s*(s|m)\\b/i' },
			}),
			credentials,
		});
		await whenAsked(() => {
			store.addContact({ id: 'ct_cy', username: 'cy' });
			store.sendMessage('ct_cy', { conversation_id: INBOX, message: 'M' }); // not from ann
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'hmm, let me think' }); // no match
		});
		const before = checks().length;
		await whenAsked(
			() => store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'm, thanks' }),
			before + 2,
		);
		const { items, error } = await run.done;
		expect(error).toBeUndefined();
		expect(items[0].json.reply).toMatchObject({ message: 'm, thanks', contact: { id: 'ct_ann' } });
	});

	test('a pattern that backtracks exponentially in JavaScript never blocks: the wait goes on and ends on the match', async () => {
		// JavaScript's engine took 15 s on a 29-character reply with this pattern; 45 characters would take days.
		const run = startMessagingRun({
			parameters: parameters({ options: { replyPattern: '^(\\w+\\s?)+$' } }),
			credentials,
		});
		await whenAsked(() =>
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: `${'a'.repeat(45)}!` }),
		);
		const before = checks().length;
		await whenAsked(
			() => store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'ship it' }),
			before + 2,
		);
		const { items, error } = await run.done;
		expect(error).toBeUndefined();
		expect(items[0].json.reply.message).toBe('ship it');
	});

	test.each(['newest_first', 'oldest_first'])(
		'%s: the question deleted during the wait ends it saying so, after at most two requests',
		async (order) => {
			sandbox.set({ order });
			const run = startMessagingRun({ parameters: parameters(), credentials });
			let afterDelete;
			let deletedId;
			await whenAsked((message) => {
				deletedId = message.id;
				store.sendMessage('ct_me', { conversation_id: INBOX, message: 'my own follow-up' });
				store.deleteMessage(message.id);
				afterDelete = sandbox.requests.length;
			}, 2);
			const { error } = await run.done;
			// Before: oldest first failed on the service's 400 for the cursor; newest first read the whole
			// conversation each check (12 requests) until the wait timed out.
			expect(error.message).toBe(`The message ${deletedId} was deleted during the wait`);
			const after = sandbox.requests.slice(afterDelete).map((r) => `${r.method} ${r.path}`);
			expect(after.length).toBeLessThanOrEqual(2);
			expect(after[after.length - 1]).toBe(`GET /v1/messages/${deletedId}`);
		},
	);

	test('oldest first on a service that ignores starting_after, a long conversation: the wait says why it cannot go on', async () => {
		for (let i = 0; i < 60; i++)
			store.sendMessage(
				'ct_ann',
				{ conversation_id: INBOX, message: `old ${i}` },
				{ createdAt: 1_700_000_010 + i },
			);
		sandbox.set({ order: 'oldest_first', ignoreCursor: true });
		const { error } = await ask({ replyTimeout: 3 });
		expect(error.message).toMatch(
			/^The Messaging service ignores starting_after: asked for the messages after msg_\w+, it answered with older ones, and the conversation is longer than one page, so a reply cannot be read$/,
		);
	});

	test('oldest first on a service that ignores starting_after, a short conversation: the reply is still found', async () => {
		sandbox.set({ order: 'oldest_first', ignoreCursor: true });
		const { items } = await ask({}, () =>
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'S' }),
		);
		expect(items[0].json).toMatchObject({ reply: { message: 'S' }, timedOut: false });
	});

	test('oldest-first service: checks with starting_after=<sent id>, one request while nothing came', async () => {
		sandbox.set({ order: 'oldest_first' });
		const run = startMessagingRun({ parameters: parameters(), credentials });
		await whenAsked(() => undefined, 4);
		const sentId = sentMessage().id;
		store.sendMessage('ct_me', { conversation_id: INBOX, message: 'mine, after' });
		store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'M' });
		const { items } = await run.done;
		expect(items[0].json.reply.message).toBe('M');
		const urls = checks().map((r) => r.path + r.query);
		// The first check reads the top of the list and sees the order; from then on, only after the sent message.
		expect(urls[0]).toBe(`/v1/messages?conversation_id=${INBOX}&limit=50`);
		expect(
			urls
				.slice(1)
				.every(
					(u) => u === `/v1/messages?conversation_id=${INBOX}&limit=50&starting_after=${sentId}`,
				),
		).toBe(true);
	});

	test.each(['newest_first', 'oldest_first'])(
		'%s: more new messages than one page, the reply at the far end is found',
		async (order) => {
			sandbox.set({ order });
			const run = startMessagingRun({
				parameters: parameters({ options: { replyPattern: 'final' } }),
				credentials,
			});
			await whenAsked(() => {
				for (let i = 0; i < 120; i++)
					store.sendMessage(i % 2 ? 'ct_me' : 'ct_ann', {
						conversation_id: INBOX,
						message: `chatter ${i}`,
					});
				store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'final answer' });
			});
			const { items, error } = await run.done;
			expect(error).toBeUndefined();
			expect(items[0].json.reply.message).toBe('final answer');
			expect(checks().some((r) => r.query.includes('starting_after='))).toBe(true);
		},
	);

	test('oldest-first, new conversation, reply within the same second: the account’s list tells the order', async () => {
		sandbox.set({ order: 'oldest_first' });
		const fresh = store.createConversation({ contact_id: 'ct_bob' }).id;
		const run = startMessagingRun({
			parameters: parameters({ conversationId: byId(fresh) }),
			credentials,
		});
		await whenAsked(() =>
			store.sendMessage('ct_bob', { conversation_id: fresh, message: 'same second' }),
		);
		const { items } = await run.done;
		expect(items[0].json.reply.message).toBe('same second');
	});
});
