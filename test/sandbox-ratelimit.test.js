'use strict';
/** The sandbox's limiter shapes, as a client sees them on the wire: statuses, Retry-After forms, rate-limit fields. */
const { request } = require('undici');
const { startSandbox, TOKEN } = require('./harness/sandbox');
const { parseArgs } = require('../sandbox/cli');

let sandbox;
afterEach(() => sandbox?.stop());

/** A clock the test moves by hand (milliseconds). */
function manualClock() {
	const clock = () => clock.now;
	clock.now = 0;
	return clock;
}

async function get(path = '/v1/conversations', options = {}) {
	const response = await request(`${sandbox.url}${path}`, {
		headers: { authorization: `Bearer ${TOKEN}` },
		...options,
	});
	const text = await response.body.text();
	return {
		status: response.statusCode,
		headers: response.headers,
		body: text ? JSON.parse(text) : undefined,
	};
}

async function statuses(count) {
	const list = [];
	for (let i = 0; i < count; i++) list.push((await get()).status);
	return list;
}

async function start(rateLimit, extra = {}) {
	({ sandbox } = await startSandbox({ seed: 'none', rateLimit, ...extra }));
}

describe('fixed window', () => {
	test('N per window, reset at the window end, not a trailing window; Retry-After in whole seconds rounded up', async () => {
		const clock = manualClock();
		await start({ shape: 'fixed-window', limit: 3, windowMs: 1000, clock });
		expect(await statuses(4)).toEqual([200, 200, 200, 429]);
		clock.now = 400;
		const limited = await get();
		expect(limited.status).toBe(429);
		expect(limited.body).toEqual({ error: { type: 'rate_limited', message: 'Too many requests' } });
		expect(limited.headers['retry-after']).toBe('1'); // 600 ms, rounded up
		expect(limited.headers['retry-after-ms']).toBeUndefined();
		clock.now = 999;
		expect(await statuses(1)).toEqual([429]);
		clock.now = 1000; // a new window: the full quota again, though the last 3 were under a second ago
		expect(await statuses(4)).toEqual([200, 200, 200, 429]);
		clock.now = 2500;
		expect((await get()).status).toBe(200);
	});

	test('a long window: Retry-After counts the seconds to its end', async () => {
		const clock = manualClock();
		await start({ shape: 'fixed-window', limit: 1, windowMs: 60_000, clock });
		await get();
		clock.now = 15_200;
		expect((await get()).headers['retry-after']).toBe('45'); // 44.8 s rounded up
	});
});

describe('sliding window', () => {
	test('N in any trailing window; Retry-After until the oldest leaves it', async () => {
		const clock = manualClock();
		await start({ shape: 'sliding-window', limit: 3, windowMs: 1000, clock, retryAfter: 'ms' });
		expect(await statuses(1)).toEqual([200]); // t=0
		clock.now = 500;
		expect(await statuses(3)).toEqual([200, 200, 429]);
		clock.now = 600;
		const limited = await get();
		expect(limited.headers['retry-after']).toBe('1');
		expect(limited.headers['retry-after-ms']).toBe('400');
		clock.now = 1000; // the request at 0 has left the window, those at 500 have not
		expect(await statuses(2)).toEqual([200, 429]);
		clock.now = 1001;
		expect((await get()).headers['retry-after-ms']).toBe('499');
		clock.now = 1500;
		expect(await statuses(3)).toEqual([200, 200, 429]);
	});
});

describe('concurrency cap', () => {
	test('429 above N requests in flight; a slot frees when its request ends', async () => {
		await start({ shape: 'concurrency', limit: 2 });
		sandbox.failNext({ stall: 'before', times: 2 }); // two requests that hold their slots
		const controllers = [new AbortController(), new AbortController()];
		const held = controllers.map((c) =>
			get('/v1/conversations', { signal: c.signal }).catch(() => 'aborted'),
		);
		await until(() => sandbox.requests.filter((r) => r.status === 'stalled').length === 2);
		const limited = await get();
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('1'); // retryAfterMs defaults to 1000
		controllers[0].abort();
		await until(() => sandbox.stats.inFlight === 1);
		expect((await get()).status).toBe(200);
		controllers[1].abort();
		expect(await Promise.all(held)).toEqual(['aborted', 'aborted']);
	});

	test('the Retry-After of its 429 is configurable', async () => {
		await start({ shape: 'concurrency', limit: 1, retryAfterMs: 2500, retryAfter: 'ms' });
		sandbox.failNext({ stall: 'before' });
		const controller = new AbortController();
		const held = get('/v1/conversations', { signal: controller.signal }).catch(() => 'aborted');
		await until(() => sandbox.stats.inFlight === 1 && sandbox.requests.length === 1);
		const limited = await get();
		expect([
			limited.status,
			limited.headers['retry-after'],
			limited.headers['retry-after-ms'],
		]).toEqual([429, '3', '2500']);
		controller.abort();
		await held;
	});
});

describe('Retry-After forms', () => {
	test('token bucket keeps its precise hint by default (seconds rounded up plus retry-after-ms)', async () => {
		const clock = manualClock();
		await start({ perSecond: 4, burst: 1, clock });
		expect(await statuses(1)).toEqual([200]);
		clock.now = 100;
		const limited = await get();
		expect([
			limited.status,
			limited.headers['retry-after'],
			limited.headers['retry-after-ms'],
		]).toEqual([429, '1', '150']);
	});

	test('seconds, an HTTP date, or absent, on every shape', async () => {
		const clock = manualClock();
		await start({ perSecond: 1, burst: 1, clock, retryAfter: 'seconds' });
		await get();
		clock.now = 100;
		let limited = await get();
		expect([limited.headers['retry-after'], limited.headers['retry-after-ms']]).toEqual([
			'1',
			undefined,
		]);

		sandbox.set({
			rateLimit: {
				shape: 'fixed-window',
				limit: 1,
				windowMs: 60_000,
				clock,
				retryAfter: 'http-date',
			},
		});
		clock.now = 0;
		await get();
		clock.now = 30_000;
		const before = Date.now();
		limited = await get();
		const after = Date.now();
		const date = /** @type {string} */ (limited.headers['retry-after']);
		expect(date).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
		expect(Date.parse(date)).toBeGreaterThanOrEqual(Math.floor((before + 30_000) / 1000) * 1000);
		expect(Date.parse(date)).toBeLessThanOrEqual(Math.ceil((after + 30_000) / 1000) * 1000);

		sandbox.set({
			rateLimit: { shape: 'sliding-window', limit: 1, windowMs: 1000, clock, retryAfter: 'none' },
		});
		await get();
		limited = await get();
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBeUndefined();
		expect(limited.headers['retry-after-ms']).toBeUndefined();
	});

	test('a scripted 429 may carry any form, or any header text at all', async () => {
		await start(null);
		sandbox.failNext(
			{ status: 429, retryAfter: 2, retryAfterForm: 'seconds' },
			{ status: 429, retryAfter: 0.25 },
			{ status: 429, retryAfter: 5, retryAfterForm: 'http-date' },
			{ status: 429, headers: { 'retry-after': '-3', 'retry-after-ms': null } },
			{ status: 503, headers: { 'retry-after': 'soon' } },
		);
		const answers = [];
		for (let i = 0; i < 5; i++) answers.push((await get()).headers);
		expect([answers[0]['retry-after'], answers[0]['retry-after-ms']]).toEqual(['2', undefined]);
		expect([answers[1]['retry-after'], answers[1]['retry-after-ms']]).toEqual(['1', '250']);
		expect(Date.parse(/** @type {string} */ (answers[2]['retry-after']))).toBeGreaterThan(
			Date.now(),
		);
		expect([answers[3]['retry-after'], answers[3]['retry-after-ms']]).toEqual(['-3', undefined]);
		expect(answers[4]['retry-after']).toBe('soon');
	});

	test("the body form: no Retry-After header, Discord's retry_after in seconds in the JSON body", async () => {
		const clock = manualClock();
		await start({ shape: 'fixed-window', limit: 1, windowMs: 1000, clock, retryAfter: 'body' });
		await get();
		clock.now = 250;
		const limited = await get();
		expect([limited.status, limited.headers['retry-after'], limited.body.retry_after]).toEqual([
			429,
			undefined,
			0.75,
		]);
		expect(limited.body.error.type).toBe('rate_limited');
		sandbox.failNext({ status: 429, retryAfter: 1.5, retryAfterForm: 'body' });
		const scripted = await get();
		expect([scripted.headers['retry-after'], scripted.body.retry_after]).toEqual([undefined, 1.5]);
	});
});

describe('rate-limit fields on every answer', () => {
	test('X-RateLimit-Limit/-Remaining/-Reset (seconds until the reset)', async () => {
		const clock = manualClock();
		await start({
			shape: 'fixed-window',
			limit: 2,
			windowMs: 60_000,
			clock,
			headers: 'x-ratelimit',
		});
		const fields = (h) => [
			h['x-ratelimit-limit'],
			h['x-ratelimit-remaining'],
			h['x-ratelimit-reset'],
		];
		expect(fields((await get()).headers)).toEqual(['2', '1', '60']);
		clock.now = 15_000;
		const notFound = await get('/v1/messages/msg_nope'); // past the limiter, so it counts and says so
		expect(notFound.status).toBe(404);
		expect(fields(notFound.headers)).toEqual(['2', '0', '45']);
		const limited = await get();
		expect([limited.status, ...fields(limited.headers)]).toEqual([429, '2', '0', '45']);
		const unauthorized = await request(`${sandbox.url}/v1/conversations`);
		await unauthorized.body.text();
		expect(unauthorized.headers['x-ratelimit-limit']).toBeUndefined(); // refused before the limiter
	});

	test('X-RateLimit-Reset as Unix seconds', async () => {
		const clock = manualClock();
		await start({
			shape: 'fixed-window',
			limit: 2,
			windowMs: 60_000,
			clock,
			headers: 'x-ratelimit-epoch',
		});
		const before = Date.now();
		const reset = Number((await get()).headers['x-ratelimit-reset']);
		expect(reset).toBeGreaterThanOrEqual(Math.ceil((before + 60_000) / 1000));
		expect(reset).toBeLessThanOrEqual(Math.ceil((Date.now() + 60_000) / 1000));
	});

	test('IETF fields, current draft syntax, and draft 07', async () => {
		const clock = manualClock();
		await start({ shape: 'sliding-window', limit: 100, windowMs: 60_000, clock, headers: 'ietf' });
		let answer = await get();
		expect([answer.headers['ratelimit-policy'], answer.headers.ratelimit]).toEqual([
			'"default";q=100;w=60',
			'"default";r=99;t=60',
		]);
		clock.now = 55_000;
		answer = await get();
		expect(answer.headers.ratelimit).toBe('"default";r=98;t=5');
		sandbox.set({
			rateLimit: {
				shape: 'fixed-window',
				limit: 100,
				windowMs: 60_000,
				clock,
				headers: 'ietf-draft-07',
			},
		});
		answer = await get();
		expect([answer.headers['ratelimit-policy'], answer.headers.ratelimit]).toEqual([
			'100;w=60',
			'limit=100, remaining=99, reset=5',
		]);
	});

	test('a token bucket: limit = burst, remaining = whole tokens left, reset = until full; a concurrency cap: no window', async () => {
		const clock = manualClock();
		await start({ perSecond: 10, burst: 5, clock, headers: 'x-ratelimit' });
		await get();
		const h = (await get()).headers;
		expect([h['x-ratelimit-limit'], h['x-ratelimit-remaining'], h['x-ratelimit-reset']]).toEqual([
			'5',
			'3',
			'1',
		]);
		sandbox.set({ rateLimit: { shape: 'concurrency', limit: 4, headers: 'ietf' } });
		const answer = await get();
		expect([answer.headers['ratelimit-policy'], answer.headers.ratelimit]).toEqual([
			'"default";q=4',
			'"default";r=3;t=0',
		]);
	});
});

test('stats count every request and every 429; the shape changes while running and goes away', async () => {
	const clock = manualClock();
	await start({ shape: 'fixed-window', limit: 2, windowMs: 1000, clock });
	expect(await statuses(3)).toEqual([200, 200, 429]);
	expect(sandbox.stats).toMatchObject({ requests: 3, rateLimited: 1 });
	sandbox.set({ rateLimit: { shape: 'token-bucket', perSecond: 1, burst: 1, clock } });
	expect(await statuses(2)).toEqual([200, 429]);
	sandbox.set({ rateLimit: null });
	expect(await statuses(3)).toEqual([200, 200, 200]);
	expect(sandbox.stats).toMatchObject({ requests: 8, rateLimited: 2 });
	sandbox.resetStats();
	expect(sandbox.stats).toMatchObject({ requests: 0, rateLimited: 0, faults: 0 });
});

test('a bad limiter is refused at start and while running, leaving the running one in place', async () => {
	expect(() =>
		require('../sandbox/server').createSandbox({ rateLimit: { shape: 'leaky' } }),
	).toThrow(/rateLimit.shape is one of/);
	const clock = manualClock();
	await start({ shape: 'fixed-window', limit: 1, windowMs: 1000, clock });
	expect(() => sandbox.set({ rateLimit: { shape: 'fixed-window', limit: 0 } })).toThrow(
		/limit must be a positive number/,
	);
	expect(() => sandbox.set({ rateLimit: { perSecond: 1, retryAfter: 'minutes' } })).toThrow(
		/retryAfter is one of/,
	);
	expect(await statuses(2)).toEqual([200, 429]);
});

test('command line: every shape, form and field', () => {
	expect(
		parseArgs([
			'--rate-limit',
			'5',
			'--rate-shape',
			'sliding-window',
			'--rate-window-ms',
			'200',
			'--retry-after',
			'http-date',
			'--rate-headers',
			'ietf',
		]).rateLimit,
	).toEqual({
		shape: 'sliding-window',
		limit: 5,
		windowMs: 200,
		retryAfter: 'http-date',
		headers: 'ietf',
	});
	expect(parseArgs(['--rate-limit', '100', '--rate-burst', '10']).rateLimit).toEqual({
		perSecond: 100,
		burst: 10,
	});
	expect(
		parseArgs(['--rate-limit', '8', '--rate-shape', 'concurrency', '--rate-retry-after-ms', '500'])
			.rateLimit,
	).toEqual({ shape: 'concurrency', limit: 8, retryAfterMs: 500 });
	expect(() => parseArgs(['--rate-shape', 'fixed-window'])).toThrow(/--rate-limit N is needed/);
	expect(() => parseArgs(['--retry-after', 'minutes', '--rate-limit', '1'])).toThrow(
		/--retry-after is one of/,
	);
});

/** Waits, a turn of the event loop at a time, for what the server has to observe (a socket event). */
async function until(condition) {
	for (let i = 0; i < 2000 && !condition(); i++)
		await new Promise((resolve) => setTimeout(resolve, 1));
	expect(condition()).toBe(true);
}
