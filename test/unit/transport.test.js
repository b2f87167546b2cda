'use strict';
const {
	normalizeBaseUrl,
	buildUrl,
	encodePathSegment,
	baseUrlProblem,
	describeLocation,
} = require('../../dist/nodes/shared/transport/url');
const {
	isRetryable: retryable,
	backoffMs,
	decideRetry,
	DEFAULT_RETRY,
} = require('../../dist/nodes/shared/transport/retry');
const { requestError, serviceErrorText } = require('../../dist/nodes/shared/transport/errors');
const {
	refusalStatus,
	spentQuotaResetAt,
} = require('../../dist/nodes/shared/headers/rateLimitHeaders');
const { redact, secretsOf } = require('../../dist/nodes/shared/transport/redact');

const isRetryable = (method, kind, status) => retryable(method, { kind, status });

describe('URLs', () => {
	test.each([
		['https://api.example.com', 'https://api.example.com'],
		['https://api.example.com/', 'https://api.example.com'],
		['https://api.example.com/v1', 'https://api.example.com'],
		['https://api.example.com/v1/', 'https://api.example.com'],
		['  https://api.example.com/base//  ', 'https://api.example.com/base'],
	])('base URL %j is %j', (input, expected) => {
		expect(normalizeBaseUrl(input)).toBe(expected);
	});

	test('every path segment is one encoded segment', () => {
		expect(buildUrl('http://h/v1', { path: ['messages', '../conversations/x'] })).toBe(
			'http://h/v1/messages/..%2Fconversations%2Fx',
		);
		expect(buildUrl('http://h', { path: ['messages', 'a?b#c%d'] })).toBe(
			'http://h/v1/messages/a%3Fb%23c%25d',
		);
	});

	test('query strings use the form encoding and leave out undefined', () => {
		expect(
			buildUrl('http://h', {
				path: ['messages'],
				query: { conversation_id: 'c 1&2', limit: 5, starting_after: undefined },
			}),
		).toBe('http://h/v1/messages?conversation_id=c%201%262&limit=5');
	});

	test('dot segments cannot be sent as ids', () => {
		expect(() => encodePathSegment('..')).toThrow('cannot be used as an ID');
		expect(() => encodePathSegment('.')).toThrow();
		expect(() => encodePathSegment('')).toThrow();
	});
});

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

describe('the service’s own error text', () => {
	test.each([
		[{ error: { message: 'No such message: x' } }, 'No such message: x'],
		[{ error: 'bad_token' }, 'bad_token'],
		[{ message: 'Nope' }, 'Nope'],
		[{ errors: [{ message: 'first' }] }, 'first'],
		// OAuth: the description, not the code; Spring: the message, not the reason phrase.
		[
			{ error: 'duplicate_message', error_description: 'An identical message was sent 2 s ago' },
			'An identical message was sent 2 s ago',
		],
		[
			{ error: 'Bad Request', message: 'limit must be at most 50', status: 400 },
			'limit must be at most 50',
		],
		// JSON:API, FastAPI, Rails, RFC 9457, a bare list.
		[
			{
				errors: [
					{ status: '422', title: 'Invalid Attribute', detail: 'conversation_id is unknown' },
				],
			},
			'conversation_id is unknown',
		],
		[
			{ errors: [{ title: 'Invalid Attribute' }, { title: 'Too long' }] },
			'Invalid Attribute; Too long',
		],
		[
			{
				detail: [{ loc: ['body', 'message'], msg: 'field required', type: 'value_error.missing' }],
			},
			'message: field required',
		],
		[
			{ errors: { message: ["can't be blank"], conversation_id: ['is invalid'] } },
			"can't be blank; conversation_id: is invalid",
		],
		[
			{ type: 'about:blank', title: 'Not Found', detail: 'No such message: x' },
			'No such message: x',
		],
		[{ type: 'about:blank', title: 'Conflict', status: 409 }, 'Conflict'],
		[['first', 'second'], 'first; second'],
		[{ errors: ['x'.repeat(300)] }, `${'x'.repeat(200)}…`],
		// Cut between whole characters: never half an emoji (a lone surrogate strict decoders reject).
		[{ errors: [`${'x'.repeat(199)}${'😀'.repeat(50)}`] }, `${'x'.repeat(199)}…`],
		['{"error":{"message":"from text"}}', 'from text'],
		[
			'<html><head><style>p{}</style></head><body><h1>502 Bad Gateway</h1></body></html>',
			'502 Bad Gateway',
		],
		['', undefined],
		[undefined, undefined],
	])('%j gives %j', (body, expected) => {
		expect(serviceErrorText(body)).toBe(expected);
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

describe('Base URL checks', () => {
	test.each([
		['https://api.example.com', undefined],
		['http://127.0.0.1:3000/api/v1/', undefined],
		['https://user:secret@api.example.com', 'must not contain a user name or password'],
		['https://api.example.com?x=1', 'must not contain a query'],
		['https://api.example.com/#top', 'must not contain a fragment'],
		['ftp://api.example.com', 'must start with http:// or https://'],
		['api.example.com', 'is not a URL'],
	])('%j', (input, problem) => {
		const found = baseUrlProblem(input);
		if (problem === undefined) expect(found).toBeUndefined();
		else expect(found).toContain(problem);
	});
	test('a redirect target is shown as origin and path only', () => {
		expect(
			describeLocation('https://u:p@evil.example/x/y?token=abc#f', 'http://h/v1/messages'),
		).toBe('https://evil.example/x/y');
		expect(describeLocation('/v2/messages?a=1', 'http://h/v1/messages')).toBe(
			'http://h/v2/messages',
		);
		expect(describeLocation(undefined, 'http://h/')).toBe('(no Location header)');
	});
});

describe('redaction', () => {
	test('the token, bearer credentials and Base URL user info never survive', () => {
		const secrets = secretsOf({
			accessToken: ' tok_SECRET123 ',
			baseUrl: 'https://bob:p%40ss@h.example/api',
		});
		const text =
			'echo: Authorization: Bearer tok_SECRET123; url https://bob:p%40ss@h.example/api; again p@ss and tok_SECRET123; other Bearer abc.def';
		const clean = redact(text, secrets);
		for (const secret of ['tok_SECRET123', 'p%40ss', 'p@ss', 'bob:', 'abc.def'])
			expect(clean).not.toContain(secret);
		expect(clean).toContain('[redacted]');
	});
	test('a token the 200-character cut of a service text went through is masked too', () => {
		const token = 'tok_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
		const secrets = secretsOf({ accessToken: token, baseUrl: 'https://api.example.com' });
		const text = serviceErrorText({
			error: { message: `${'x'.repeat(180)} credential ${token} expired` },
		});
		expect(text).toMatch(/credential tok_4f9a.*…$/);
		expect(redact(text, secrets)).toMatch(/credential \[redacted\]…$/);
		const { description } = requestError(
			{ kind: 'status', status: 401 },
			{ errors: [{ detail: `${'x'.repeat(180)} credential ${token} revoked` }] },
			{
				node: { name: 'Messaging' },
				where: 'GET /v1/messages',
				method: 'GET',
				attempts: 1,
				secrets,
			},
		);
		expect(description).not.toContain('tok_4f9a');
	});
});

describe('cancellation', () => {
	const { messagingApiRequest, Pacer } = require('../../dist/nodes/shared/transport');

	test('a request held for a spent announced quota stops at its next turn when the execution is cancelled, even while a request in flight does not end', async () => {
		// n8n's own HTTP client ends its requests on a cancel; one that does not (it cannot be made to here)
		// keeps the quota spent, and the held request was handed back a turn of wait 0 and held again at
		// once, without sleeping: a microtask loop that starved the process until the quota's reset.
		const { sleep } = require('n8n-workflow');
		let turns = 0; // each hold ends in a new turn
		const pacer = new Pacer({ sleep: (ms, signal) => ((turns += 1), sleep(ms, signal)) });
		const cancel = new AbortController();
		let releaseSlow;
		const slow = new Promise((resolve) => (releaseSlow = resolve));
		let calls = 0;
		const context = {
			getNode: () => ({ name: 'Messaging', type: 'messaging', credentials: {} }),
			getCredentials: async () => ({ baseUrl: 'https://api.example.com', accessToken: 'tok' }),
			getExecutionCancelSignal: () => cancel.signal,
			helpers: {
				httpRequestWithAuthentication: async () => {
					calls += 1;
					if (calls === 1) {
						const headers = {
							'x-ratelimit-limit': '10',
							'x-ratelimit-remaining': '0',
							'x-ratelimit-reset': '1',
						};
						return { statusCode: 200, headers, body: { id: 'a' } };
					}
					await slow; // in flight until the test ends
					return { statusCode: 200, headers: {}, body: { id: 'b' } };
				},
			},
		};
		const get = (id) =>
			messagingApiRequest.call(context, { method: 'GET', path: ['messages', id] }, { pacer });
		const first = get('a');
		const second = get('b').catch((error) => error);
		try {
			await first;
			const third = get('c').then(
				() => 'sent',
				(error) => error.name,
			);
			await new Promise((resolve) => setTimeout(resolve, 20)); // held: 0 remaining, one in flight
			const turnsBeforeCancel = turns;
			cancel.abort();
			expect(await third).toBe('AbortError');
			expect(calls).toBe(2); // the third never went
			expect(turns - turnsBeforeCancel).toBeLessThanOrEqual(1); // 64,667 before, in the 1 s to the reset
		} finally {
			releaseSlow();
			await second;
		}
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
		const after = (rateLimited) =>
			decideRetry(
				'POST',
				{ kind: 'status', status: 429, retryAfterMs: 0 },
				{ failures: 0, rateLimited, waitedMs: 0 },
				policy,
				half,
			);
		expect(after(0)).toEqual({ retry: true, delayMs: 0, rateLimited: true }); // the hint, once
		expect(after(1).delayMs).toBe(1000);
		expect(after(4).delayMs).toBe(8000);
		// A longer hint is kept as it is.
		expect(
			decideRetry(
				'GET',
				{ kind: 'status', status: 429, retryAfterMs: 5000 },
				{ failures: 0, rateLimited: 1, waitedMs: 0 },
				policy,
				half,
			).delayMs,
		).toBe(5000);
	});
});
