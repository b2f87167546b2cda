'use strict';
/**
 * The benchmark's rate-limit matrix against the sandbox's limiters, in virtual time: its own suite, since it
 * takes most of the pacer tests' time (every cell, three seeds).
 */
const { Pacer } = require('../../dist/nodes/shared/transport/pacing/pacer');
const { MAX_START_GAP_MS } = require('../../dist/nodes/shared/transport/pacing/rateEstimate');
const { MAX_WAIT_PER_RETRY_MS } = require('../../dist/nodes/shared/headers/retryAfter');
const { simulate, benchmarkCells, verdict } = require('../harness/pacerSimulation');

const PINNED = {
	'concurrency cap 3 in flight, seconds, x-ratelimit headers | Get (32)': [1.25, 0.03],
	'concurrency cap 3 in flight, seconds, x-ratelimit headers | Send (32)': [1.15, 0.04],
};

describe("the benchmark's rate-limit matrix against the sandbox's limiters, in virtual time", () => {
	test.each(
		benchmarkCells().map((cell) => /** @type {[string, typeof cell]} */ ([cell.label, cell])),
	)('%s', async (label, cell) => {
		const pin = PINNED[label.replace('Retry-After ', '')];
		for (const seed of [1, 2, 3]) {
			const s = await simulate({ Pacer, ...cell, seed });
			expect(s.failed).toBe(0);
			expect(s.done).toBe(cell.requests);
			if (pin) {
				expect(s.ratio).toBeLessThanOrEqual(pin[0]);
				expect(s.share429).toBeLessThanOrEqual(pin[1]);
			} else expect(verdict(cell, s)).toEqual(expect.objectContaining({ met: true }));
		}
	});

	test('a slower start (first answers 50-70 ms late, not 20-40): an estimate taken low while they were slow comes back up in time', async () => {
		// 1.22-1.30× before the probe above the learned rate doubled every second instead of every two.
		const cell = benchmarkCells().find(
			(c) => c.label === 'sliding window 100 per 1 s, Retry-After seconds | Send (32)',
		);
		for (const seed of [1, 2, 3]) {
			const s = await simulate({ Pacer, ...cell, seed, warmUpExtra: [50, 70] });
			expect(verdict(cell, s)).toEqual(expect.objectContaining({ met: true }));
		}
	});

	// 6 s is the minimum (300 / 50).
	test.each([50, 10])(
		"the issue's case: 300 Gets at 8 on a 50/s bucket (burst %i), Retry-After: 1, within 1.25× of 6 s",
		async (burst) => {
			const s = await simulate({
				Pacer,
				rateLimit: { shape: 'token-bucket', perSecond: 50, burst, retryAfter: 'seconds' },
				requests: 300,
				parallel: 8,
			});
			expect(s.failed).toBe(0);
			expect(s.elapsedMs).toBeLessThanOrEqual(7500);
		},
	);

	test('a window that stays closed 12 s while answering Retry-After: 0: 60 Sends are all delivered (at 1, 8 and 32 in flight), not given up within 2 s', async () => {
		for (const parallel of [1, 8, 32]) {
			let opened;
			const closed = {
				shape: 'fixed-window',
				retryAfter: 'seconds', // Retry-After: 0
				headers: 'none',
				take: (now) => ((opened ??= now + 12_000), { allowed: now >= opened, waitMs: 0 }),
				state: () => ({ limit: 0, remaining: 0, resetMs: 0, windowMs: 1000 }),
			};
			const s = await simulate({ Pacer, limiter: closed, requests: 60, parallel, method: 'POST' });
			expect(s.failed).toBe(0);
			expect(s.done).toBe(60);
			expect(s.elapsedMs).toBeLessThan(30_000);
		}
	});

	test('a 429 storm that never clears: the first request gives up after its budget, the run right after it; no busy loop, bounded waits', async () => {
		for (const retryAfter of ['seconds', 'none']) {
			let clock;
			const never = {
				shape: 'fixed-window',
				retryAfter,
				headers: 'none',
				clock: () => clock,
				take: (now) => ((clock = now), { allowed: false, waitMs: 1000 }),
				state: () => ({ limit: 0, remaining: 0, resetMs: 1000, windowMs: 1000 }),
			};
			const s = await simulate({ Pacer, limiter: never, requests: 40, parallel: 8 });
			expect(s.done).toBe(0);
			expect(s.failed).toBe(40);
			// One turn per answer, each a 429, except turns given up once the run stopped (at most one per
			// item in progress: 8 places, and as many lent). At most DEFAULT_RETRY.maxRateLimited per item
			// in progress, not per item (40 × 12 before).
			expect(s.reserves).toBeGreaterThanOrEqual(s.answers);
			expect(s.reserves).toBeLessThanOrEqual(s.answers + 2 * 8);
			expect(s.answers).toBeLessThanOrEqual(2 * 8 * 12);
			expect(s.longestWaitMs).toBeLessThanOrEqual(MAX_WAIT_PER_RETRY_MS + MAX_START_GAP_MS);
			// Each request waits at most 60 s for its retries: the first gives up after about that (a run
			// that stops at its first error ends there), and with Continue On Fail the run ends right
			// after it: the others stop at their next try, at the latest when their current wait ends
			// (before, the run took about 40/8 budgets: 13-39 minutes).
			expect(s.firstFailedMs).toBeLessThanOrEqual(90_000);
			expect(s.elapsedMs).toBeLessThanOrEqual(
				s.firstFailedMs + MAX_WAIT_PER_RETRY_MS + MAX_START_GAP_MS,
			);
		}
	});
});
