'use strict';
/** The service's faults as node errors: authentication, unreachable, error bodies, rate limits and quotas, retries. */
const { runMessagingNode } = require('../harness/n8n');
const { startAnnSaidHi } = require('../harness/annSaidHi');
const { startSandbox, byId, TOKEN } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startAnnSaidHi());
});
afterEach(() => sandbox.stop());

const run = (parameters, extra = {}) => runMessagingNode({ parameters, credentials, ...extra });

/** Everything an error carries, as n8n would serialize or log it. */
const everything = (error) =>
	JSON.stringify({
		...error,
		message: error.message,
		description: error.description,
		stack: error.stack,
		cause: error.cause,
	});

describe('service faults', () => {
	test('wrong token: a clear authentication error, and the token is nowhere in it', async () => {
		credentials.accessToken = 'wrong-token-77';
		const { error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		});
		expect(error.message).toBe(
			'Authentication failed: check the access token of the Messaging API credential',
		);
		expect(error.httpCode).toBe('401');
		expect(everything(error)).not.toContain('wrong-token-77');
	});

	test('unreachable base URL: names the URL, at once', async () => {
		await sandbox.stop();
		const { error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		});
		// No "(gave up after N attempts)": a refused connection is not retried.
		expect(error.message).toBe(`Could not reach the Messaging service at ${sandbox.url}`);
		expect(error.description).toContain('ECONNREFUSED');
		expect(everything(error)).not.toContain(TOKEN);
		({ sandbox } = await startSandbox({ seed: 'none' })); // for afterEach
	});

	test('HTML and empty error bodies still read well', async () => {
		// A Get repeats a 500 (6 attempts in all); these fail every one.
		sandbox.failNext({
			status: 500,
			html: '<html><body><h1>Internal Server Error</h1><p>upstream crashed</p></body></html>',
			times: 6,
		});
		let { error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		});
		expect(error.message).toBe(
			'The Messaging service failed (500): Internal Server Error upstream crashed (gave up after 6 attempts)',
		);
		sandbox.failNext({ status: 500, html: '', times: 6 });
		({ error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		}));
		expect(error.message).toBe('The Messaging service failed (500) (gave up after 6 attempts)');
	});

	test('the service’s reason from the error shapes real services send, else the body’s start', async () => {
		const send = () =>
			run({
				resource: 'message',
				operation: 'send',
				conversationId: byId('conv_00000001'),
				text: 'x',
			});
		sandbox.failNext({
			status: 422,
			body: { errors: [{ status: '422', title: 'Invalid Attribute', detail: 'text is too long' }] },
		});
		let { error } = await send();
		expect(error.message).toBe(
			'The Messaging service rejected the request (422): text is too long',
		);
		sandbox.failNext({
			status: 409,
			body: {
				error: 'duplicate_message',
				error_description: 'An identical message was sent 2 s ago',
			},
		});
		({ error } = await send());
		expect(error.message).toBe(
			'The Messaging service rejected the request (409): An identical message was sent 2 s ago',
		);
		sandbox.failNext({ status: 422, body: { code: 17, fields: ['message'] } });
		({ error } = await send());
		expect(error.message).toBe('The Messaging service rejected the request (422)');
		expect(error.description).toBe(
			'POST /v1/messages returned 422: {"code":17,"fields":["message"]}',
		);
	});

	test('429 and 503 are retried, honouring Retry-After; GET and PUT retried after a dropped connection', async () => {
		sandbox.failNext(
			{ status: 429, retryAfter: 0 },
			{ status: 503, retryAfter: 0 },
			{ drop: 'before' },
		);
		const { items, error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		});
		expect(error).toBeUndefined();
		expect(items[0].json.id).toBe('msg_00000001');
		expect(sandbox.requests.map((r) => r.status)).toEqual([429, 503, 'dropped', 200]);
	});

	test('a 403 that says a rate limit refused it (nothing remaining, or Retry-After) is a 429; another 403 is not', async () => {
		const send = {
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'once',
		};
		const spent = {
			'x-ratelimit-limit': '60',
			'x-ratelimit-remaining': '0',
			'x-ratelimit-reset': '1',
		};
		sandbox.failNext(
			{ status: 403, body: { message: 'API rate limit exceeded' }, headers: spent },
			{
				status: 403,
				body: { message: 'You have exceeded a secondary rate limit' },
				headers: { 'retry-after': '0' },
			},
		);
		let { error } = await run(send);
		expect(error).toBeUndefined();
		expect(sandbox.requests.map((r) => r.status)).toEqual([403, 403, 200]);
		expect(
			sandbox.store
				.listMessages({ conversation_id: 'conv_00000001' })
				.filter((m) => m.message === 'once'),
		).toHaveLength(1);

		sandbox.clearRequests();
		sandbox.failNext({ status: 403, body: { message: 'Not a member of this conversation' } });
		({ error } = await run(send));
		expect(error.message).toBe(
			'The access token is not allowed to do this: Not a member of this conversation',
		);
		expect(sandbox.requests).toHaveLength(1);
	});

	test('a rate limit’s 403 that never clears is reported as rate limiting, with the status the service sent', async () => {
		sandbox.failNext({
			status: 403,
			body: { message: 'API rate limit exceeded' },
			headers: { 'x-ratelimit-remaining': '0', 'retry-after': '0' },
			times: 'always',
		});
		const { error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		});
		expect(error.message).toBe(
			'The Messaging service is rate limiting requests (gave up after 12 attempts)',
		);
		expect(error.description).toBe(
			'GET /v1/messages/msg_00000001 returned 403: API rate limit exceeded',
		);
	});

	test('a quota spent until an hour away is not waited for a minute at a time: the request fails at once, saying until when', async () => {
		const reset = Math.floor(Date.now() / 1000) + 3600;
		sandbox.failNext({
			status: 429,
			headers: {
				'x-ratelimit-limit': '5000',
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': String(reset),
				'retry-after': '3600',
			},
			times: 'always',
		});
		const { error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		});
		expect(error.message).toBe(
			`The Messaging service's rate limit quota is spent until ${new Date(reset * 1000).toISOString()} (in 60 min)`,
		);
		expect(error.description).toMatch(
			/returned 429.*A request waits at most 60 s for a rate limit, so it was not repeated/,
		);
		expect(sandbox.requests).toHaveLength(1);

		// A run: the first wave says so, the others are not sent (the storm rule). Before: 60 s waits, item by item.
		sandbox.clearRequests();
		const input = Array.from({ length: 20 }, () => ({ id: 'msg_00000001' }));
		const { items } = await run(
			{
				resource: 'message',
				operation: 'get',
				messageId: '={{ $json.id }}',
				options: { parallelRequests: 4 },
			},
			{ input, continueOnFail: true },
		);
		expect(sandbox.requests).toHaveLength(4);
		expect(new Set(items.map((i) => i.json.error))).toEqual(
			new Set([
				error.message,
				'The Messaging service is rate limiting requests (the run stopped retrying)',
			]),
		);
	});

	test('Send is repeated after a 429 (not processed), never after a dropped connection or a 503', async () => {
		const send = {
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'once',
		};
		sandbox.failNext({ status: 429, retryAfter: 0 });
		let { error } = await run(send);
		expect(error).toBeUndefined();
		expect(sandbox.requests.map((r) => r.status)).toEqual([429, 200]);

		sandbox.clearRequests();
		sandbox.failNext({ drop: 'after' });
		({ error } = await run(send));
		expect(error.message).toBe('The connection to the Messaging service was lost');
		expect(error.description).toContain('may or may not have processed it, so it was not repeated');
		expect(sandbox.requests).toHaveLength(1);

		sandbox.clearRequests();
		sandbox.failNext({ status: 503 });
		({ error } = await run(send));
		expect(error.message).toBe(
			'The Messaging service failed (503): Service temporarily unavailable',
		);
		expect(sandbox.requests).toHaveLength(1);

		const sent = sandbox.store.listMessages({}).filter((m) => m.message === 'once');
		expect(sent).toHaveLength(2); // the 429-retried send and the one cut off after processing: never a duplicate
	});

	test('a DELETE cut off after it was processed is reported as done on the retry', async () => {
		sandbox.failNext({ drop: 'after' });
		const { items, error } = await run({
			resource: 'message',
			operation: 'delete',
			messageId: byId('msg_00000001'),
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({ id: 'msg_00000001', deleted: true });
		expect(sandbox.requests.map((r) => r.status)).toEqual(['dropped after processing', 404]);
	});

	test('retries are bounded: a service that keeps answering 503 fails with a plain message', async () => {
		sandbox.set({ faults: { rate503: 1 } });
		const { error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		});
		expect(error.message).toMatch(
			/^The Messaging service failed \(503\): Service temporarily unavailable \(gave up after \d attempts\)$/,
		);
		expect(sandbox.requests.length).toBeLessThanOrEqual(6);
	}, 60_000);
});
