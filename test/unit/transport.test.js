'use strict';
const {
	normalizeBaseUrl,
	buildUrl,
	encodePathSegment,
	retryAfterMs,
	serviceErrorText,
	isRetryable,
	backoffMs,
	DEFAULT_RETRY,
} = require('../../dist/nodes/shared/transport');

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
		expect(buildUrl('http://h', { path: ['messages', 'a?b#c%d'] })).toBe('http://h/v1/messages/a%3Fb%23c%25d');
	});

	test('query strings use the form encoding and leave out undefined', () => {
		expect(buildUrl('http://h', { path: ['messages'], query: { conversation_id: 'c 1&2', limit: 5, starting_after: undefined } })).toBe(
			'http://h/v1/messages?conversation_id=c%201%262&limit=5',
		);
	});

	test('dot segments cannot be sent as ids', () => {
		expect(() => encodePathSegment('..')).toThrow('cannot be used as an ID');
		expect(() => encodePathSegment('.')).toThrow();
		expect(() => encodePathSegment('')).toThrow();
	});
});

describe('Retry-After', () => {
	test('milliseconds header wins, then seconds, then an HTTP date', () => {
		expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '1' })).toBe(250);
		expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
		expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 7_000)).toBe(3000);
		expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
		expect(retryAfterMs({})).toBeUndefined();
	});
});

describe('which failures are retried', () => {
	test('a POST is repeated only when the service surely did not process it', () => {
		expect(isRetryable('POST', 'status', 429)).toBe(true);
		expect(isRetryable('POST', 'status', 503)).toBe(false);
		expect(isRetryable('POST', 'dropped')).toBe(false);
		expect(isRetryable('POST', 'status', 500)).toBe(false);
	});
	test('GET, PUT and DELETE are repeated on 429, 502-504 and dropped connections, not on 4xx or 500', () => {
		for (const method of ['GET', 'PUT', 'DELETE']) {
			expect(isRetryable(method, 'status', 429)).toBe(true);
			expect(isRetryable(method, 'status', 503)).toBe(true);
			expect(isRetryable(method, 'dropped')).toBe(true);
			expect(isRetryable(method, 'status', 500)).toBe(false);
			expect(isRetryable(method, 'status', 404)).toBe(false);
		}
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

describe('the service’s own error text', () => {
	test.each([
		[{ error: { message: 'No such message: x' } }, 'No such message: x'],
		[{ error: 'bad_token' }, 'bad_token'],
		[{ message: 'Nope' }, 'Nope'],
		[{ errors: [{ message: 'first' }] }, 'first'],
		['{"error":{"message":"from text"}}', 'from text'],
		['<html><head><style>p{}</style></head><body><h1>502 Bad Gateway</h1></body></html>', '502 Bad Gateway'],
		['', undefined],
		[undefined, undefined],
	])('%j gives %j', (body, expected) => {
		expect(serviceErrorText(body)).toBe(expected);
	});
});
