'use strict';
const path = require('node:path');
const { transportDefaults } = require(
	path.join(__dirname, '../../dist/nodes/shared/transport/index.js'),
);
/**
 * Send and Wait for Reply through n8n-core's WorkflowExecute against the sandbox: the message on the
 * wire, which later message is the reply, both list orders, time-out, cancellation and rate limits.
 * Replies are written into the sandbox's store while the node waits, as another account would.
 */
const { runMessagingNode, startMessagingRun } = require('../harness/n8n');
const { startSandbox, byId, wire } = require('../harness/sandbox');

let sandbox;
let credentials;
let store;
const INBOX = 'conv_00000001';
const OTHER = 'conv_00000002';

beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	store = sandbox.store;
	for (const id of ['ct_ann', 'ct_bob']) store.addContact({ id, username: id.slice(3) });
	store.createConversation({ contact_id: 'ct_ann' }); // INBOX
	store.createConversation({ contact_id: 'ct_bob' }); // OTHER
	// History from earlier, so the list order shows in the conversation's own page.
	store.sendMessage(
		'ct_ann',
		{ conversation_id: INBOX, message: 'earlier' },
		{ createdAt: 1_700_000_000 },
	);
	store.sendMessage(
		'ct_me',
		{ conversation_id: INBOX, message: 'earlier too' },
		{ createdAt: 1_700_000_001 },
	);
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const parameters = (extra = {}) => ({
	resource: 'message',
	operation: 'sendAndWaitForReply',
	conversationId: byId(INBOX),
	message: 'Which size, S or M?',
	replyTimeout: 5,
	checkInterval: 0.05,
	...extra,
});

const sentText = 'Which size, S or M?';
const sentMessage = () => [...store.messages.values()].find((m) => m.message === sentText);
const checks = () =>
	sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/messages');

/** Calls `write` once the question is in the conversation and the node has checked at least `afterChecks` times. */
async function whenAsked(write, afterChecks = 1) {
	for (let i = 0; i < 400; i++) {
		if (sentMessage() && checks().length >= afterChecks) return write(sentMessage());
		await new Promise((r) => setTimeout(r, 5));
	}
	throw new Error('the question was never sent');
}

async function ask(extra, write, afterChecks) {
	const run = startMessagingRun({ parameters: parameters(extra), credentials });
	if (write) await whenAsked(write, afterChecks);
	return await run.done;
}

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

	test('time-out: { sent, reply: null, timedOut: true }, or an error naming the item when asked', async () => {
		const { items } = await ask({ replyTimeout: 0.3 });
		expect(items[0].json).toMatchObject({
			sent: { message: sentText },
			reply: null,
			timedOut: true,
		});
		expect(checks().length).toBeGreaterThanOrEqual(2);

		const failed = await ask({ replyTimeout: 0.2, onTimeout: 'error' });
		expect(failed.error.message).toBe('No reply came within 0.2 s');
	});

	test('cancelling the execution ends the wait at once, with no timer left behind and no check after', async () => {
		// The node's 30 s pause between checks is tracked from creation until it fires or is cleared.
		const pending = new Set();
		let fired = 0;
		const { setTimeout: realSet, clearTimeout: realClear } = global;
		global.setTimeout = (fn, ms, ...args) => {
			const handle = realSet(
				(...a) => (pending.delete(handle) && (fired += 1), fn(...a)),
				ms,
				...args,
			);
			if (ms === 30_000) pending.add(handle);
			return handle;
		};
		global.clearTimeout = (handle) => (pending.delete(handle), realClear(handle));
		try {
			const run = startMessagingRun({
				parameters: parameters({ replyTimeout: 600, checkInterval: 30 }),
				credentials,
			});
			await whenAsked(() => undefined, 1);
			while (pending.size === 0) await new Promise((r) => realSet(r, 5)); // the node is pausing
			run.cancel();
			const result = await run.done;
			expect(result.status).toBe('canceled');
			expect(pending.size).toBe(0); // cleared by the cancel, not run out
			expect(fired).toBe(0);
			const afterCancel = checks().length;
			await new Promise((r) => realSet(r, 100));
			expect(checks().length).toBe(afterCancel);
		} finally {
			global.setTimeout = realSet;
			global.clearTimeout = realClear;
		}
	});

	test('a rate limit slows the checks and never fails the wait, even past the transport’s retries', async () => {
		// A request accepts 3 answers of 429 here (12 by default), so 5 in a row outlast one request's retries.
		const saved = transportDefaults.retry;
		transportDefaults.retry = { ...saved, maxRateLimited: 3 };
		try {
			const run = startMessagingRun({ parameters: parameters({ replyTimeout: 60 }), credentials });
			const limited = sandbox.stats.rateLimited;
			await whenAsked(() =>
				sandbox.failNext(...Array.from({ length: 5 }, () => ({ status: 429, retryAfter: 0.01 }))),
			);
			// The reply comes once all 5 were answered: the wait outlived them (however the pace settled).
			for (let i = 0; i < 3000 && sandbox.stats.rateLimited - limited < 5; i++)
				await new Promise((r) => setTimeout(r, 10));
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'S' });
			const { items, error } = await run.done;
			expect(error).toBeUndefined();
			expect(sandbox.stats.rateLimited - limited).toBe(5);
			expect(items[0].json.reply.message).toBe('S');
		} finally {
			transportDefaults.retry = saved;
		}
	});

	test('one 429 with a long Retry-After on the first check only spaces the checks: the reply that came meanwhile is found within the Timeout', async () => {
		// Before: the check's retry would have come after the wait ended, so the wait ended at once.
		sandbox.failNext({
			match: { method: 'GET', path: '/v1/messages' },
			status: 429,
			retryAfter: 60,
			retryAfterForm: 'seconds',
		});
		const { items, error } = await ask({ replyTimeout: 3 }, () =>
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'S' }),
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ timedOut: false, reply: { message: 'S' } });
		expect(checks()[0].status).toBe(429);
	}, 15_000);

	test.each([
		['every check stalls (no answer)', { stall: 'before' }],
		[
			'every check is refused with Retry-After: 20',
			{ status: 429, retryAfter: 20, retryAfterForm: 'seconds' },
		],
		// Its retry would come after the wait ends: the wait times out, it does not fail.
		[
			'a check fails with 503 and Retry-After: 2',
			{ status: 503, retryAfter: 2, retryAfterForm: 'seconds' },
		],
	])(
		'%s: the wait ends at its own Timeout with timedOut: true, not after the transport’s retries',
		async (_, fault) => {
			// Before: a check waited out its retries whatever the deadline (a stall: 30 s an attempt, 6
			// attempts, then an error; Retry-After: 20, a minute).
			sandbox.failNext({
				match: { method: 'GET', path: '/v1/messages' },
				times: 'always',
				...fault,
			});
			const { items, error } = await ask({ replyTimeout: 1 });
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({ reply: null, timedOut: true });
		},
		15_000,
	);

	test('Options → Timeout bounds the send and the checks as on every other operation', async () => {
		sandbox.failNext({ match: { method: 'POST', path: '/v1/messages' }, stall: 'before' });
		const { error } = await ask({ options: { timeout: 1 } });
		// Before: 30 s, the default, whatever the option said.
		expect(error.message).toBe('The Messaging service did not answer within 1 s');
	}, 15_000);

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

	test.each([
		[{ message: '   ' }, 'Message is empty'],
		[{ conversationId: byId('conv_nope') }, 'Conversation "conv_nope" does not exist'],
		[
			{ options: { replyPattern: '(yes' } },
			'Reply Must Match is not a valid regular expression: Invalid regular expression: /(yes/: Unterminated group',
		],
		[
			{ replyTimeout: 7200 },
			'Wait for Reply (Seconds) is 7200, above the maximum of 3600 (one hour): a waiting execution holds an n8n slot; use Send and Wait for Response for longer waits',
		],
		[{ checkInterval: 0 }, 'Check Every (Seconds) must be a positive number of seconds'],
		[
			{ options: { replyPattern: '(yes|no) \\1' } },
			'Reply Must Match uses a backreference, which needs a backtracking engine: it is not supported here',
		],
	])('bad input %j: a clear error before anything is sent', async (extra, message) => {
		const { error } = await runMessagingNode({ parameters: parameters(extra), credentials });
		expect(error.message).toBe(message);
		expect(sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
	});

	test('the second item’s bad input is named by its index, after the first was answered', async () => {
		const run = startMessagingRun({
			parameters: parameters({ message: '={{ $json.q }}' }),
			input: [{ q: sentText }, { q: '' }],
			credentials,
		});
		await whenAsked(() => store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'S' }));
		const { error } = await run.done;
		expect(error.message).toBe('Message is empty [item 1]');
	});
});
