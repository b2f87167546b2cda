'use strict';
/**
 * The transport's pure parts: URLs and the Base URL checks, the service's own error text, redaction of
 * secrets, cancellation. Which failures are retried and how long they wait is in transportRetry.test.js.
 */
const {
	normalizeBaseUrl,
	buildUrl,
	encodePathSegment,
	baseUrlProblem,
	describeLocation,
} = require('../../dist/nodes/shared/transport/url');
const { requestError, serviceErrorText } = require('../../dist/nodes/shared/transport/errors');
const { redact, secretsOf } = require('../../dist/nodes/shared/transport/redact');

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
			// Only what the description's text reads of the context.
			/** @type {Parameters<typeof requestError>[2]} */ ({
				node: /** @type {import('n8n-workflow').INode} */ ({ name: 'Messaging' }),
				where: 'GET /v1/messages',
				method: 'GET',
				attempts: 1,
				secrets,
			}),
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
		/** @type {(value?: unknown) => void} */
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
