'use strict';
/**
 * The transport's retries: which failures are retried, the status an answer counts as, spent quotas, the
 * decision and its bounds.
 */
const {
	isRetryable: retryable,
	backoffMs,
	decideRetry,
	DEFAULT_RETRY,
} = require('../../dist/nodes/shared/transport/retry');
const {
	refusalStatus,
	spentQuotaResetAt,
} = require('../../dist/nodes/shared/headers/rateLimitHeaders');

const isRetryable = (method, kind, status) => retryable(method, { kind, status });

describe('which failures are retried', () => {
	test('a POST is repeated only when the service surely did not process it', () => {
		expect(isRetryable('POST', 'status', 429)).toBe(true);
		expect(isRetryable('POST', 'status', 503)).toBe(false);
		expect(isRetryable('POST', 'dropped')).toBe(false);
		expect(isRetryable('POST', 'status', 500)).toBe(false);
	});
	test('GET, PUT and DELETE are repeated on 429, 500 and 502-504 and dropped connections, not on 4xx, 501 or 505', () => {
		for (const method of ['GET', 'PUT', 'DELETE']) {
			for (const status of [429, 500, 502, 503, 504])
				expect(isRetryable(method, 'status', status)).toBe(true);
			expect(isRetryable(method, 'dropped')).toBe(true);
			for (const status of [400, 404, 409, 501, 505])
				expect(isRetryable(method, 'status', status)).toBe(false);
		}
	});
	test('a timed-out request is retried like a dropped connection: never a POST', () => {
		expect(isRetryable('GET', 'timeout')).toBe(true);
		expect(isRetryable('PUT', 'timeout')).toBe(true);
		expect(isRetryable('POST', 'timeout')).toBe(false);
	});
	test('redirects are never retried', () => {
		for (const status of [301, 302, 303, 307, 308])
			expect(isRetryable('GET', 'status', status)).toBe(false);
	});
	test('an unreachable service, or a failure inside n8n before the network, is reported at once', () => {
		expect(isRetryable('GET', 'unreachable')).toBe(false);
		expect(isRetryable('GET', 'other')).toBe(false);
	});
	test('backoff doubles, is capped, and jitters by ±25%', () => {
		expect(backoffMs(1, DEFAULT_RETRY, () => 0.5)).toBe(500);
		expect(backoffMs(3, DEFAULT_RETRY, () => 0.5)).toBe(2000);
		expect(backoffMs(10, DEFAULT_RETRY, () => 0.5)).toBe(8000);
		expect(backoffMs(1, DEFAULT_RETRY, () => 0)).toBe(375);
	});
});

describe('the status an answer counts as', () => {
	const now = Date.UTC(2026, 10, 25, 12);
	test.each([
		[403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 60) }, 429],
		[403, { 'X-RateLimit-Remaining': '0' }, 429],
		[403, { ratelimit: 'limit=60, remaining=0, reset=30' }, 429],
		[403, { 'retry-after': '60' }, 429],
		[403, { 'retry-after-ms': '500' }, 429],
		[403, { 'x-rate-limit-remaining': '0' }, 429],
		[403, { 'ratelimit-remaining': '0' }, 429],
		[403, { 'x-ratelimit-remaining-requests': '0' }, 403],
		[403, { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' }, 429],
		[403, { 'x-ratelimit-remaining': '0.0' }, 403],
		[403, { 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '30' }, 403],
		[403, {}, 403],
		[404, { 'x-ratelimit-remaining': '0' }, 404],
		[429, {}, 429],
	])('%i with %j counts as %i', (status, headers, expected) => {
		expect(refusalStatus(status, headers, now)).toBe(expected);
	});
});

describe('a quota spent beyond any wait', () => {
	const now = Date.UTC(2026, 10, 25, 12);
	test('nothing remaining until a reset more than 60 s away; a nearer reset or a remaining quota is waited for', () => {
		const headers = (remaining, resetSeconds) => ({
			'x-ratelimit-limit': '5000',
			'x-ratelimit-remaining': String(remaining),
			'x-ratelimit-reset': String(now / 1000 + resetSeconds),
		});
		expect(spentQuotaResetAt(headers(0, 3600), now)).toBe(now + 3_600_000);
		expect(spentQuotaResetAt(headers(0, 60), now)).toBeUndefined();
		expect(spentQuotaResetAt(headers(3, 3600), now)).toBeUndefined();
		expect(spentQuotaResetAt({ 'retry-after': '3600' }, now)).toBeUndefined(); // a Retry-After alone may be a unit mistake
		expect(
			decideRetry(
				'GET',
				{ kind: 'status', status: 429, quotaResetAt: now + 3_600_000 },
				{ failures: 0, rateLimited: 0, waitedMs: 0 },
				DEFAULT_RETRY,
			),
		).toEqual({ retry: false, reason: 'exhausted' });
	});
});

describe('decideRetry', () => {
	const fresh = { failures: 0, rateLimited: 0, waitedMs: 0 };
	const fixed = () => 0.5;
	test('the first dropped connection is retried at once, the next after backoff', () => {
		expect(decideRetry('GET', { kind: 'dropped' }, fresh, DEFAULT_RETRY, fixed)).toEqual({
			retry: true,
			delayMs: 0,
			rateLimited: false,
		});
		expect(
			decideRetry('GET', { kind: 'dropped' }, { ...fresh, failures: 1 }, DEFAULT_RETRY, fixed),
		).toEqual({ retry: true, delayMs: 1000, rateLimited: false });
	});
	test('a 429 waits what the service asked and counts apart from other failures', () => {
		const decision = decideRetry(
			'POST',
			{ kind: 'status', status: 429, retryAfterMs: 1200 },
			{ ...fresh, failures: 5 },
			DEFAULT_RETRY,
			fixed,
		);
		expect(decision).toEqual({ retry: true, delayMs: 1200, rateLimited: true });
	});
	test('gives up after maxAttempts failures, maxRateLimited 429s, or maxTotalWaitMs of waiting', () => {
		expect(
			decideRetry(
				'GET',
				{ kind: 'status', status: 503 },
				{ ...fresh, failures: 5 },
				DEFAULT_RETRY,
				fixed,
			),
		).toEqual({ retry: false, reason: 'exhausted' });
		expect(
			decideRetry(
				'GET',
				{ kind: 'status', status: 429 },
				{ ...fresh, rateLimited: 11 },
				DEFAULT_RETRY,
				fixed,
			),
		).toEqual({ retry: false, reason: 'exhausted' });
		expect(
			decideRetry(
				'GET',
				{ kind: 'status', status: 503, retryAfterMs: 5000 },
				{ ...fresh, waitedMs: 58_000 },
				DEFAULT_RETRY,
				fixed,
			),
		).toEqual({ retry: false, reason: 'exhausted' });
	});
	test('a policy can be passed in: tests use a fast one', () => {
		const fast = { ...DEFAULT_RETRY, baseDelayMs: 1, maxDelayMs: 2 };
		expect(
			decideRetry('GET', { kind: 'status', status: 502 }, { ...fresh, failures: 3 }, fast, fixed),
		).toEqual({ retry: true, delayMs: 2, rateLimited: false });
	});
	test('a POST that may have been processed is not repeated', () => {
		expect(decideRetry('POST', { kind: 'status', status: 503 }, fresh, DEFAULT_RETRY)).toEqual({
			retry: false,
			reason: 'not-retryable',
		});
		expect(decideRetry('POST', { kind: 'timeout' }, fresh, DEFAULT_RETRY)).toEqual({
			retry: false,
			reason: 'not-retryable',
		});
	});
});

describe('retry edges: one rule each (docs/pacing.md#bounds)', () => {
	const {
		messagingApiRequest,
		Pacer,
		transportDefaults,
	} = require('../../dist/nodes/shared/transport');
	const { forEachWithConcurrency } = require('../../dist/nodes/Messaging/helpers/concurrency');
	/** A context whose every request is answered by `answer(n)` (n: 1, 2, …). */
	const serviceAnswering = (answer) => {
		const context = {
			calls: 0,
			getNode: () => ({ name: 'Messaging', type: 'messaging', credentials: {} }),
			getCredentials: async () => ({ baseUrl: 'https://api.example.com', accessToken: 'tok' }),
			helpers: {
				httpRequestWithAuthentication: async () => answer(++context.calls),
			},
		};
		return context;
	};

	test('a 429 whose Retry-After would pass the deadline is waited only until shortly before it: the request is tried again in time (a rate limit spaces a wait for a reply, it never ends it)', async () => {
		const context = serviceAnswering((n) =>
			n === 1
				? { statusCode: 429, headers: { 'retry-after': '60' }, body: '' }
				: { statusCode: 200, headers: {}, body: { data: [] } },
		);
		const started = Date.now();
		const deadline = started + 1500;
		const answer = await messagingApiRequest.call(
			context,
			{ method: 'GET', path: ['messages'] },
			{ pacer: new Pacer(), deadline, expect: 'list' },
		);
		expect(answer).toEqual({ data: [] });
		expect(context.calls).toBe(2);
		expect(Date.now()).toBeLessThan(deadline); // tried again at half the time left, 750 ms
		expect(Date.now() - started).toBeGreaterThanOrEqual(700);
	});

	test('a 5xx storm that never clears ends the run after one retry budget, as a 429 storm does: 32 Gets at 8 in flight', async () => {
		const saved = transportDefaults.retry;
		transportDefaults.retry = { ...saved, baseDelayMs: 1, maxDelayMs: 4 };
		try {
			const context = serviceAnswering(() => ({
				statusCode: 503,
				headers: {},
				body: { error: { message: 'down' } },
			}));
			const pacer = new Pacer();
			const errors = [];
			await forEachWithConcurrency(
				32,
				8,
				async (i) => {
					await messagingApiRequest
						.call(context, { method: 'GET', path: ['messages', `m${i}`] }, { pacer })
						.catch((error) => errors.push(error));
				},
				false,
			);
			expect(errors).toHaveLength(32);
			// One budget (6 attempts) for the requests in flight, not one per item (32 × 6 = 192 before).
			expect(context.calls).toBeLessThanOrEqual(8 * 6);
			const stopped = errors.filter((e) => e.refusal === 'run');
			expect(stopped.length).toBeGreaterThanOrEqual(32 - 8);
			expect(stopped[0].message).toBe(
				'The Messaging service failed (503) (the run stopped retrying)',
			);
			expect(stopped[0].httpCode).toBe('503');
		} finally {
			transportDefaults.retry = saved;
		}
	});

	test('a retry that would come after the deadline is not made: the error says the deadline was reached (a 503 whose Retry-After passes it is not cut short as a 429 is)', async () => {
		const context = serviceAnswering(() => ({
			statusCode: 503,
			headers: { 'retry-after': '5' },
			body: '',
		}));
		const error = await messagingApiRequest
			.call(
				context,
				{ method: 'GET', path: ['messages'] },
				{ pacer: new Pacer(), deadline: Date.now() + 2000 },
			)
			.catch((e) => e);
		expect(context.calls).toBe(1);
		expect(error.deadlineReached).toBe(true);
		expect(error.message).toBe('The Messaging service failed (503)');
	});

	test('an attempt under a deadline ends at the deadline (and its grace), not at its own 30 s timeout', async () => {
		const context = serviceAnswering(() => new Promise(() => {}));
		const started = Date.now();
		const error = await messagingApiRequest
			.call(
				context,
				{ method: 'GET', path: ['messages'] },
				{ pacer: new Pacer(), deadline: started + 200 },
			)
			.catch((e) => e);
		expect(Date.now() - started).toBeLessThan(3000); // 200 ms + 1 s of grace
		expect(context.calls).toBe(1);
		expect(error.deadlineReached).toBe(true);
	});

	test('failures of the request, not of the service (404s), never stop the run: every request is sent', async () => {
		const context = serviceAnswering(() => ({ statusCode: 404, headers: {}, body: '' }));
		const pacer = new Pacer();
		for (let i = 0; i < 20; i++) {
			const error = await messagingApiRequest
				.call(context, { method: 'GET', path: ['messages', `m${i}`] }, { pacer })
				.catch((e) => e);
			expect(error.refusal).toBeUndefined();
		}
		expect(context.calls).toBe(20);
	});

	test('a Retry-After the same request already waited out and was refused again is a floor no more: from the second 429 on, at least the backoff', () => {
		const policy = DEFAULT_RETRY;
		const half = () => 0.5; // no jitter
		/** @typedef {{ retry: true, delayMs: number, rateLimited: boolean }} Retry each of these is */
		const after = (rateLimited) =>
			/** @type {Retry} */ (
				decideRetry(
					'POST',
					{ kind: 'status', status: 429, retryAfterMs: 0 },
					{ failures: 0, rateLimited, waitedMs: 0 },
					policy,
					half,
				)
			);
		expect(after(0)).toEqual({ retry: true, delayMs: 0, rateLimited: true }); // the hint, once
		expect(after(1).delayMs).toBe(1000);
		expect(after(4).delayMs).toBe(8000);
		// A longer hint is kept as it is.
		expect(
			/** @type {Retry} */ (
				decideRetry(
					'GET',
					{ kind: 'status', status: 429, retryAfterMs: 5000 },
					{ failures: 0, rateLimited: 1, waitedMs: 0 },
					policy,
					half,
				)
			).delayMs,
		).toBe(5000);
	});
});
