'use strict';
/** The service's waits: Retry-After in its forms, the service's clock, a 429's body. */
const {
	parseRetryAfter,
	retryHintMs,
	MAX_WAIT_PER_RETRY_MS,
	serviceNow,
} = require('../../dist/nodes/shared/headers/retryAfter');
const { parseRateLimitHeaders } = require('../../dist/nodes/shared/headers/rateLimitHeaders');

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('parseRetryAfter', () => {
	test('seconds, fractional seconds, retry-after-ms first, an HTTP date', () => {
		expect(parseRetryAfter({ 'retry-after': '3' }, NOW)).toBe(3000);
		expect(parseRetryAfter({ 'retry-after': ' 1.5 ' }, NOW)).toBe(1500);
		expect(parseRetryAfter({ 'retry-after': 2 }, NOW)).toBe(2000);
		expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '1' }, NOW)).toBe(250);
		expect(parseRetryAfter({ 'retry-after': new Date(NOW + 5000).toUTCString() }, NOW)).toBe(5000);
		expect(parseRetryAfter({ 'retry-after': 'Thursday, 01-Jan-26 12:00:07 GMT' }, NOW)).toBe(7000);
	});
	test('names in any case, a repeated header as an array', () => {
		expect(parseRetryAfter({ 'Retry-After': '4' }, NOW)).toBe(4000);
		expect(parseRetryAfter({ 'RETRY-AFTER-MS': '40' }, NOW)).toBe(40);
		expect(parseRetryAfter({ 'retry-after': ['2', '9'] }, NOW)).toBe(2000);
	});
	test('malformed or past gives undefined (the caller backs off), the far future is clamped', () => {
		for (const bad of ['-5', 'soon', '', '1e3', 'Infinity', 'NaN', '0x10', '3 seconds']) {
			expect(parseRetryAfter({ 'retry-after': bad }, NOW)).toBeUndefined();
		}
		expect(parseRetryAfter({ 'retry-after-ms': '-1', 'retry-after': '2' }, NOW)).toBe(2000);
		expect(parseRetryAfter({ 'retry-after': null }, NOW)).toBeUndefined();
		expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
		expect(parseRetryAfter({}, NOW)).toBeUndefined();
		// A date already past says when it was, not how long to wait (0 before: retried at once).
		expect(
			parseRetryAfter({ 'retry-after': new Date(NOW - 60_000).toUTCString() }, NOW),
		).toBeUndefined();
		expect(parseRetryAfter({ 'retry-after': new Date(NOW).toUTCString() }, NOW)).toBeUndefined();
		expect(parseRetryAfter({ 'retry-after': '0' }, NOW)).toBe(0); // a number is the service's own word
		expect(parseRetryAfter({ 'retry-after': '7200' }, NOW)).toBe(MAX_WAIT_PER_RETRY_MS);
		expect(
			parseRetryAfter({ 'retry-after': new Date(NOW + 7 * 86_400_000).toUTCString() }, NOW),
		).toBe(MAX_WAIT_PER_RETRY_MS);
		expect(parseRetryAfter({ 'retry-after-ms': '99999999' }, NOW)).toBe(MAX_WAIT_PER_RETRY_MS);
	});
});

describe("the service's clock", () => {
	const date = (ms) => new Date(ms).toUTCString();
	test("an HTTP-date Retry-After is read on the service's clock when its Date header shows it elsewhere", () => {
		const wait = (skewMs) =>
			parseRetryAfter({ date: date(NOW + skewMs), 'retry-after': date(NOW + skewMs + 3000) }, NOW);
		// Two minutes behind: the date was past (0 before, so each refused request was repeated at once).
		expect(wait(-120_000)).toBe(2500);
		// Two minutes ahead: a minute's wait before (clamped), for a limit that reopens in 3 s.
		expect(wait(120_000)).toBe(2500);
		// In step (the header's whole second and a trip apart): our finer clock.
		expect(wait(0)).toBe(3000);
		expect(parseRetryAfter({ date: date(NOW - 1400), 'retry-after': date(NOW + 3000) }, NOW)).toBe(
			3000,
		);
		// Without a readable Date header: ours. Only HTTP's date forms are dates: Date.parse alone reads
		// "abc 5" as the year 2005 and "foo 2030" as 2030 (a clock hundreds of millions of seconds off).
		for (const garbage of ['soon', 'abc 5', 'foo 2030', 'Jan 1'])
			expect(parseRetryAfter({ date: garbage, 'retry-after': date(NOW + 3000) }, NOW)).toBe(3000);
		// RFC 850 and asctime, the obsolete forms HTTP still reads.
		expect(parseRetryAfter({ 'retry-after': 'Thursday, 01-Jan-26 12:00:03 GMT' }, NOW)).toBe(3000);
		expect(parseRetryAfter({ 'retry-after': 'Thu Jan  1 12:00:03 2026' }, NOW)).toBe(3000);
		// Names of days, months and the zone in any case; a form's parts are not mixed with another's.
		expect(parseRetryAfter({ 'retry-after': 'thu, 01 jan 2026 12:00:03 gmt' }, NOW)).toBe(3000);
		expect(parseRetryAfter({ 'retry-after': 'thursday, 01-jan-26 12:00:03 gmt' }, NOW)).toBe(3000);
		for (const mixed of [
			'Thu, 01-Jan-26 12:00:03 GMT',
			'Thursday, 01 Jan 2026 12:00:03 GMT',
			'Thu Jan  1 12:00:03 2026 GMT',
			'Thu, 01 Jan 2026 12:00:03',
		])
			expect(parseRetryAfter({ 'retry-after': mixed }, NOW)).toBeUndefined();
		expect(serviceNow({}, NOW)).toBe(NOW);
		expect(serviceNow({ date: date(NOW - 3_600_000) }, NOW)).toBe(NOW - 3_600_000 + 500);
	});
	test("an epoch reset is read on the service's clock too; a relative one needs no clock", () => {
		const headers = (skewMs, reset) => ({
			date: date(NOW + skewMs),
			'x-ratelimit-limit': '10',
			'x-ratelimit-remaining': '0',
			'x-ratelimit-reset': reset(skewMs),
		});
		const epochIn5s = (skewMs) => String((NOW + skewMs + 5000) / 1000);
		// Two minutes ahead: a 125 s wait before (a spent quota's reset is waited for, up to a minute a time).
		expect(parseRateLimitHeaders(headers(120_000, epochIn5s), NOW).resetMs).toBe(4500);
		// Two minutes behind: the reset had passed, so the spent quota governed nothing.
		expect(parseRateLimitHeaders(headers(-120_000, epochIn5s), NOW).resetMs).toBe(4500);
		expect(
			parseRateLimitHeaders(
				headers(-120_000, () => '5'),
				NOW,
			).resetMs,
		).toBe(5000);
	});
});

describe('retryHintMs', () => {
	test("the headers first, else the body's retry_after in seconds (Discord's, Telegram's), as JSON or text", () => {
		const discord = { message: 'You are being rate limited.', retry_after: 0.346, global: false };
		const telegram = { ok: false, error_code: 429, parameters: { retry_after: 35 } };
		expect(retryHintMs({}, discord, NOW)).toBe(346);
		expect(retryHintMs(undefined, JSON.stringify(telegram), NOW)).toBe(35_000);
		expect(retryHintMs({ 'retry-after': '2' }, discord, NOW)).toBe(2000);
		expect(retryHintMs({ 'retry-after': 'soon' }, discord, NOW)).toBe(346);
		expect(retryHintMs({}, { retry_after: 3600 }, NOW)).toBe(MAX_WAIT_PER_RETRY_MS);
		expect(retryHintMs({}, { errcode: 'M_LIMIT_EXCEEDED', retry_after_ms: 2000 }, NOW)).toBe(2000);
		expect(retryHintMs({}, { retry_after: 1, parameters: { retry_after: 9 } }, NOW)).toBe(1000);
		expect(retryHintMs({}, { ok: false, parameters: { retry_after: 9 } }, NOW)).toBe(9000);
		expect(retryHintMs({}, `{"retry_after": 1, "pad": "${'x'.repeat(10_000)}"}`, NOW)).toBe(
			undefined,
		);
		for (const body of [
			{ retry_after: -1 },
			{ retry_after: '5' },
			{ error: { message: 'slow down' } },
			'retry later',
			'{"retry_after":',
			[{ retry_after: 1 }],
			null,
		]) {
			expect(retryHintMs({}, body, NOW)).toBeUndefined();
		}
	});
});
