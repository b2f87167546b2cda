'use strict';
/**
 * Send and Wait for Reply's limits through n8n-core's WorkflowExecute against the sandbox: its time-out,
 * cancellation, rate limits and stalled checks against its own Timeout, and bad input before anything is sent.
 */
const path = require('node:path');
const { transportDefaults } = require(
	path.join(__dirname, '../../dist/nodes/shared/transport/index.js'),
);
const { runMessagingNode, startMessagingRun } = require('../harness/n8n');
const { byId } = require('../harness/sandbox');
const {
	INBOX,
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

const { checks, whenAsked, ask } = replyHelpers(() => ({
	sandbox,
	credentials,
	store,
}));

describe('Send and Wait for Reply', () => {
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
		// A stand-in with setTimeout's calling convention, not its typed overloads.
		global.setTimeout = /** @type {any} */ (
			(fn, ms, ...args) => {
				const handle = realSet(
					(...a) => (pending.delete(handle) && (fired += 1), fn(...a)),
					ms,
					...args,
				);
				if (ms === 30_000) pending.add(handle);
				return handle;
			}
		);
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
