'use strict';
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({
		seed: 'none',
		rateLimit: { perSecond: 200, burst: 10 },
		latencyMs: 2,
	}));
	sandbox.store.addContact({ id: 'ct_ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' });
	for (let i = 0; i < 300; i++)
		sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: `m${i}` });
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

/** The next request to `path` is answered 429 with `Retry-After: 1`. */
const refuseOnce = (method, path, retryAfter = 1) =>
	sandbox.failNext({
		status: 429,
		retryAfter,
		retryAfterForm: 'seconds',
		match: { method, path },
	});

/** The Messaging node's Get for each id, `parallelRequests` at a time. */
const getEach = (ids, parallelRequests) =>
	runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'get',
			messageId: '={{ $json.id }}',
			options: { parallelRequests },
		},
		input: ids.map((id) => ({ id })),
		credentials,
	});

test('under a rate limit, 16 in parallel: every item succeeds, in input order, without a storm of retries', async () => {
	const ids = [...sandbox.store.messages.keys()].reverse();
	const { items, error } = await getEach(ids, 16);
	expect(error).toBeUndefined();
	expect(items.map((i) => i.json.id)).toEqual(ids);
	expect(items.map((i) => i.pairedItem.item)).toEqual(ids.map((_, i) => i));
	const limited = sandbox.requests.filter((r) => r.status === 429).length;
	console.log(
		`300 Gets at 16 in parallel under 200 requests/s: ${sandbox.requests.length} requests, ${limited} answered 429`,
	);
	// The pacing learns the rate from 429s, so some are expected; a storm would be each request retrying
	// up to its 12 allowed answers on its own. How many exactly depends on scheduling, so the bound is loose.
	expect(sandbox.requests.length).toBeLessThan(300 * 3);
});

test('Send under a rate limit: every message once, in item order', async () => {
	const input = Array.from({ length: 60 }, (_, n) => ({ n }));
	const { items, error } = await runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: '=send {{ $json.n }}',
		},
		input,
		credentials,
	});
	expect(error).toBeUndefined();
	expect(items).toHaveLength(60);
	const stored = sandbox.store
		.listMessages({ conversation_id: 'conv_00000001' })
		.map((m) => m.message)
		.filter((t) => t.startsWith('send '));
	expect(stored).toEqual(input.map(({ n }) => `send ${n}`));
});

test('X-RateLimit-Remaining without a window: after the first wave (sent before any answer), requests go as answers free places, with no more 429s', async () => {
	sandbox.set({
		latencyMs: 20,
		rateLimit: { shape: 'token-bucket', perSecond: 50, burst: 5, headers: 'x-ratelimit' },
	});
	const ids = [...sandbox.store.messages.keys()].slice(0, 100);
	const { items, error } = await getEach(ids, 16);
	expect(error).toBeUndefined();
	expect(items.map((i) => i.json.id)).toEqual(ids);
	const statuses = sandbox.requests.map((r) => r.status);
	// The first 16 leave before any answer; the 5 of the burst pass, about 11 are refused. After them,
	// what the answers announce is all that goes (the reset, 1 s rounded up, is too coarse to pace by
	// time). Before the Pacer counted `remaining`, 14-19 more were refused here; jitter may cost one or two.
	expect(statuses.slice(16).filter((s) => s === 429).length).toBeLessThanOrEqual(2);
});

test("a 429's Retry-After is the refused request's own wait: the run's other requests go on meanwhile", async () => {
	const ids = [...sandbox.store.messages.keys()].slice(0, 40);
	sandbox.set({ rateLimit: null });
	// 3 s: room for the 39 others to be answered first even on a busy machine.
	refuseOnce('GET', `/v1/messages/${ids[0]}`, 3);
	const started = Date.now();
	const { items, error } = await getEach(ids, 4);
	expect(error).toBeUndefined();
	expect(items.map((i) => i.json.id)).toEqual(ids);
	// Retry-After: 3 is honoured for the refused request...
	expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
	// ...while the 39 others were all answered before its repeat (a hold for the whole run would put
	// the repeat among them).
	const paths = sandbox.requests.map((r) => `${r.path} ${r.status}`);
	expect(paths.slice(0, 4)).toContain(`/v1/messages/${ids[0]} 429`);
	expect(paths.at(-1)).toBe(`/v1/messages/${ids[0]} 200`);
	expect(paths).toHaveLength(41);
});

test('a storm that never clears ends the run after one retry budget, not one per item: with Continue On Fail every item says so', async () => {
	const ids = [...sandbox.store.messages.keys()].slice(0, 40);
	sandbox.set({ rateLimit: null });
	sandbox.failNext({ status: 429, retryAfter: 0, retryAfterForm: 'seconds', times: 'always' });
	const { items, error } = await runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'get',
			messageId: '={{ $json.id }}',
			options: { parallelRequests: 8 },
		},
		input: ids.map((id) => ({ id })),
		credentials,
		continueOnFail: true,
	});
	expect(error).toBeUndefined();
	expect(items).toHaveLength(40);
	expect(items.map((i) => i.pairedItem.item)).toEqual(ids.map((_, i) => i));
	const messages = items.map((i) => i.json.error);
	expect(messages.every((m) => /^The Messaging service is rate limiting requests/.test(m))).toBe(
		true,
	);
	expect(messages).toContain(
		'The Messaging service is rate limiting requests (gave up after 12 attempts)',
	);
	expect(messages).toContain(
		'The Messaging service is rate limiting requests (the run stopped retrying)',
	);
	// Before, every item spent 12 rate-limited answers of its own: 480 requests. Now the items in progress
	// when the first gave up (8 places, and as many lent while their retries back off) stop at their next
	// try, and the rest are not sent.
	expect(sandbox.requests.every((r) => r.status === 429)).toBe(true);
	expect(sandbox.requests.length).toBeLessThanOrEqual(2 * 8 * 12);
});

test("a 429 whose only hint is the body's retry_after (Discord's form) waits that long, not the backoff", async () => {
	const ids = [...sandbox.store.messages.keys()].slice(0, 3);
	sandbox.set({ rateLimit: null });
	sandbox.failNext({
		status: 429,
		retryAfter: 2.2,
		retryAfterForm: 'body',
		match: { method: 'GET', path: `/v1/messages/${ids[0]}` },
	});
	const started = Date.now();
	const { items, error } = await getEach(ids, 1);
	expect(error).toBeUndefined();
	expect(items.map((i) => i.json.id)).toEqual(ids);
	expect(sandbox.requests.map((r) => r.status)).toEqual([429, 200, 200, 200]);
	// Without the body's hint the refused Get would wait the pacer's short pause and a backoff, about 0.5 s.
	expect(Date.now() - started).toBeGreaterThanOrEqual(2200);
});

test('a request waiting out a short 429 lends its place: the next items go meanwhile, never more requests at once than Parallel Requests', async () => {
	const ids = [...sandbox.store.messages.keys()].slice(0, 20);
	sandbox.set({ rateLimit: null });
	// 3 s: room for the 19 others to be answered first even on a busy machine.
	refuseOnce('GET', `/v1/messages/${ids[0]}`, 3);
	const { items, error } = await getEach(ids, 2);
	expect(error).toBeUndefined();
	expect(items.map((i) => i.json.id)).toEqual(ids);
	const paths = sandbox.requests.map((r) => `${r.path} ${r.status}`);
	expect(paths.slice(0, 2)).toContain(`/v1/messages/${ids[0]} 429`);
	expect(paths.at(-1)).toBe(`/v1/messages/${ids[0]} 200`);
	expect(paths).toHaveLength(21);
	expect(sandbox.stats.peakInFlight).toBe(2);
});

test.each([
	[1, ['lent 0', 'lent 1', 'lent 2', 'lent 3', 'lent 4']],
	[2, ['lent 1', 'lent 2', 'lent 3', 'lent 4', 'lent 0']],
])(
	'a Send refused with a short 429 at Parallel Requests %i: stored once; in order at 1 (nothing lent), last at 2 (its place lent)',
	async (parallelRequests, expected) => {
		sandbox.set({ rateLimit: null, latencyMs: 20 });
		refuseOnce('POST', '/v1/messages');
		const input = Array.from({ length: 5 }, (_, n) => ({ n }));
		const { items, error } = await runMessagingNode({
			parameters: {
				resource: 'message',
				operation: 'send',
				conversationId: byId('conv_00000001'),
				text: '=lent {{ $json.n }}',
				options: { parallelRequests },
			},
			input,
			credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.message)).toEqual(input.map(({ n }) => `lent ${n}`));
		const stored = sandbox.store
			.listMessages({ conversation_id: 'conv_00000001' })
			.map((m) => m.message)
			.filter((t) => t.startsWith('lent '));
		expect(stored).toEqual(expected);
		expect(sandbox.stats.peakInFlight).toBeLessThanOrEqual(parallelRequests);
	},
);

test("a request held for a spent X-RateLimit quota goes at the quota's reset, not when a slow request in flight ends", async () => {
	sandbox.set({
		latencyMs: 20,
		rateLimit: { shape: 'token-bucket', perSecond: 1, burst: 1, headers: 'x-ratelimit' },
	});
	const ids = [...sandbox.store.messages.keys()].slice(0, 3);
	// The second Get hangs until the node's timeout (6 s), then is repeated.
	sandbox.failNext({ stall: 'before', match: { method: 'GET', path: `/v1/messages/${ids[1]}` } });
	const started = Date.now();
	let thirdArrivedAfterMs;
	const watch = setInterval(() => {
		if (sandbox.requests.length >= 3) thirdArrivedAfterMs ??= Date.now() - started;
	}, 20);
	const { items, error } = await runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'get',
			messageId: '={{ $json.id }}',
			options: { parallelRequests: 2, timeout: 6 },
		},
		input: ids.map((id) => ({ id })),
		credentials,
	}).finally(() => clearInterval(watch));
	expect(error).toBeUndefined();
	expect(items.map((i) => i.json.id)).toEqual(ids);
	// The first answer announced 0 remaining, reset in 1 s; the third Get waited for it, then went while
	// the second still hung (waiting for an answer instead would have held it the whole 6 s).
	expect(sandbox.requests.slice(0, 3).map((r) => r.path)).toEqual(
		[0, 1, 2].map((i) => `/v1/messages/${ids[i]}`),
	);
	expect(thirdArrivedAfterMs).toBeGreaterThanOrEqual(900);
	expect(thirdArrivedAfterMs).toBeLessThan(4000);
});

test.each([
	['two minutes behind', -120_000],
	['two minutes ahead', 120_000],
])(
	'a service whose clock is %s: its HTTP-date Retry-After is read on its own clock (its Date header), and every item succeeds',
	async (_, clockSkewMs) => {
		// Behind, every date had passed: each refused request was repeated at once and spent its 12
		// rate-limited answers within the window. Ahead, each waited a minute (the clamp) for a 1 s window.
		sandbox.set({
			clockSkewMs,
			latencyMs: 2,
			rateLimit: { shape: 'fixed-window', limit: 5, windowMs: 1000, retryAfter: 'http-date' },
		});
		const ids = [...sandbox.store.messages.keys()].slice(0, 15);
		const started = Date.now();
		const { items, error } = await getEach(ids, 4);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.id)).toEqual(ids);
		const limited = sandbox.requests.filter((r) => r.status === 429).length;
		console.log(
			`15 Gets at 4, 5 per 1 s window, service clock ${clockSkewMs / 1000} s: ${Date.now() - started} ms, ${limited} answered 429`,
		);
		expect(limited).toBeLessThan(15 * 3);
	},
	30_000,
);
