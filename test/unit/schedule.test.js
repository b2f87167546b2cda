'use strict';
const {
	intervalMs,
	nextDelay,
	shouldReport,
	serviceWaitOf,
	MAX_BACKOFF_MS,
} = require('../../dist/nodes/MessagingTrigger/v2/schedule');

test('the interval: seconds, minutes, hours, never under 5 seconds', () => {
	expect(intervalMs(5, 'seconds')).toBe(5_000);
	expect(intervalMs(1, 'seconds')).toBe(5_000);
	expect(intervalMs(2, 'minutes')).toBe(120_000);
	expect(intervalMs(3, 'hours')).toBe(10_800_000);
	expect(intervalMs(Number.NaN, 'seconds')).toBe(5_000);
});

test('after failures the wait doubles up to a cap; Retry-After is honoured; a success resets it', () => {
	const none = () => 0;
	expect([0, 1, 2, 3, 10].map((f) => nextDelay(5_000, f, undefined, none))).toEqual([
		5_000,
		10_000,
		20_000,
		40_000,
		MAX_BACKOFF_MS,
	]);
	expect(nextDelay(5_000, 1, 90_000, none)).toBe(90_000);
	expect(nextDelay(5_000, 1, 1_000, none)).toBe(10_000);
	expect(nextDelay(2 * 3_600_000, 3, undefined, none)).toBe(2 * 3_600_000); // a long interval is its own cap
	expect(nextDelay(5_000, 1, undefined, () => 1)).toBe(11_000); // spread of up to a tenth
});

test('a run of failures is reported once it lasted a minute, then at most hourly', () => {
	expect(shouldReport({ since: 0, failures: 1 }, 120_000)).toBe(false);
	expect(shouldReport({ since: 0, failures: 3 }, 30_000)).toBe(false);
	expect(shouldReport({ since: 0, failures: 3 }, 60_000)).toBe(true);
	expect(shouldReport({ since: 0, failures: 9, lastReportAt: 60_000 }, 120_000)).toBe(false);
	expect(shouldReport({ since: 0, failures: 99, lastReportAt: 60_000 }, 3_660_000)).toBe(true);
});

test('the wait the service asked for, from an error, when the transport attaches it', () => {
	expect(serviceWaitOf({ retryAfterMs: 3000 })).toBe(3000);
	expect(serviceWaitOf({ cause: { retryAfterMs: 7000 } })).toBe(7000);
	expect(serviceWaitOf({ context: { retryAfterMs: 9000 } })).toBe(9000); // NodeApiError's context
	// The whole Retry-After, not the transport's 60 s cap for waits within a request
	expect(serviceWaitOf({ context: { retryAfterMs: 60_000, askedWaitMs: 120_000 } })).toBe(120_000);
	// A quota spent until a reset: until then
	expect(serviceWaitOf({ context: { quotaResetAt: 1_000_000 } }, 400_000)).toBe(600_000);
	expect(serviceWaitOf(new Error('x'))).toBeUndefined();
});
