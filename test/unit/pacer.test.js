'use strict';
const { Pacer, MAX_INTERVAL_MS } = require('../../dist/nodes/shared/transport/pacer');
const {
	parseRetryAfter,
	parseRateLimitHeaders,
	MAX_RETRY_AFTER_MS,
} = require('../../dist/nodes/shared/transport/retryAfter');

// ---------- a simulated service and client, in virtual time ----------

/** Deterministic randomness, so every run of the suite simulates the same thing. */
function seeded(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** A minimal event loop over virtual time (a binary heap of timers). */
function virtualTime(start) {
	const heap = [];
	let seq = 0;
	const clock = { now: start };
	const less = (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
	clock.at = (at, run) => {
		heap.push({ at: Math.max(at, clock.now), seq: seq++, run });
		for (let i = heap.length - 1; i > 0; ) {
			const parent = (i - 1) >> 1;
			if (!less(heap[i], heap[parent])) break;
			[heap[i], heap[parent]] = [heap[parent], heap[i]];
			i = parent;
		}
	};
	clock.run = () => {
		while (heap.length) {
			const top = heap[0];
			const last = heap.pop();
			if (heap.length) {
				heap[0] = last;
				for (let i = 0; ; ) {
					const l = 2 * i + 1;
					const r = l + 1;
					let m = i;
					if (l < heap.length && less(heap[l], heap[m])) m = l;
					if (r < heap.length && less(heap[r], heap[m])) m = r;
					if (m === i) break;
					[heap[i], heap[m]] = [heap[m], heap[i]];
					i = m;
				}
			}
			clock.now = top.at;
			top.run();
		}
	};
	return clock;
}

/**
 * A limiter decides at a request's arrival: { ok } or { ok: false, waitMs } (the precise time to the
 * next allowed request), and describes its state for the rate-limit headers.
 */
const limiters = {
	/** rate r per second, burst b. Headers: IETF, the policy naming the rate, reset = seconds until full. */
	bucket({ rate, burst }) {
		let tokens = burst;
		let at = null;
		const refill = (now) => {
			if (at !== null) tokens = Math.min(burst, tokens + ((now - at) * rate) / 1000);
			at = now;
		};
		return {
			arrive(now) {
				refill(now);
				if (tokens >= 1) return ((tokens -= 1), { ok: true });
				return { ok: false, waitMs: ((1 - tokens) * 1000) / rate };
			},
			headers(now) {
				refill(now);
				const reset = Math.ceil((burst - tokens) / rate);
				return {
					'ratelimit-policy': `${rate};w=1`,
					ratelimit: `limit=${rate}, remaining=${Math.floor(tokens)}, reset=${reset}`,
				};
			},
			minimumMs: (requests) => ((requests - burst) * 1000) / rate,
		};
	},
	/** N per window W, windows aligned on the service's clock. Headers: IETF RateLimit + RateLimit-Policy. */
	fixed({ limit, windowMs }, start) {
		let window = -1;
		let used = 0;
		const sync = (now) => {
			const current = Math.floor(now / windowMs);
			if (current !== window) ((window = current), (used = 0));
		};
		const toEnd = (now) => (window + 1) * windowMs - now;
		return {
			arrive(now) {
				sync(now);
				if (used < limit) return ((used += 1), { ok: true });
				return { ok: false, waitMs: toEnd(now) };
			},
			headers(now, form) {
				sync(now);
				const reset = Math.ceil(toEnd(now) / 1000);
				if (form === 'unnamed') {
					return {
						'x-ratelimit-limit': `${limit}`,
						'x-ratelimit-remaining': `${limit - used}`,
						'x-ratelimit-reset': `${reset}`,
					};
				}
				return {
					ratelimit: `limit=${limit}, remaining=${limit - used}, reset=${reset}`,
					'ratelimit-policy': `${limit};w=${windowMs / 1000}`,
				};
			},
			// The last request goes out at the start of the window that takes it; the first window is partial.
			minimumMs: (requests) => {
				const firstWindowLeft = windowMs - (start % windowMs);
				const windows = Math.ceil(requests / limit);
				return windows <= 1 ? 0 : firstWindowLeft + (windows - 2) * windowMs;
			},
		};
	},
	/** At most N accepted in any window W (a log). Headers: X-RateLimit-*, the limit naming its window, reset as epoch seconds. */
	sliding({ limit, windowMs }) {
		const log = [];
		const prune = (now) => {
			while (log.length && log[0] <= now - windowMs) log.shift();
		};
		return {
			arrive(now) {
				prune(now);
				if (log.length < limit) return (log.push(now), { ok: true });
				return { ok: false, waitMs: log[0] + windowMs - now };
			},
			headers(now) {
				prune(now);
				const resetAt = log.length ? log[0] + windowMs : now;
				return {
					'X-RateLimit-Limit': `${limit}, ${limit};w=${windowMs / 1000}`,
					'X-RateLimit-Remaining': String(limit - log.length),
					'X-RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
				};
			},
			minimumMs: (requests) => (Math.ceil(requests / limit) - 1) * windowMs,
		};
	},
	/** At most K requests in the service at once; it cannot say when one ends, so it says "1 s". */
	concurrency({ max }) {
		let inService = 0;
		return {
			arrive() {
				if (inService < max) return ((inService += 1), { ok: true, leave: () => (inService -= 1) });
				return { ok: false, waitMs: 1000 };
			},
			headers: () => ({}),
			minimumMs: (requests, meanLatencyMs) => (requests * meanLatencyMs) / max,
		};
	},
};

const MAX_RATE_LIMITED = 12; // as the transport: each request accepts up to 12 answered 429s
const MAX_TOTAL_WAIT_MS = 60_000;
const START = Date.UTC(2026, 0, 1) + 370; // not on a second: windows and HTTP dates have a phase

/**
 * Runs `requests` requests at `concurrency` through one Pacer against a limiter, as the transport
 * does: reserve(), wait, send; onResponse() for every answer; a 429 is retried after its Retry-After
 * (else a backoff), up to MAX_RATE_LIMITED times. Latency: 2-5 ms up, 15-20 ms in the service, 3-5 ms down.
 */
function simulate({
	shape,
	params,
	requests,
	concurrency,
	retryAfter = 'seconds',
	headers = false,
	seed = 1,
}) {
	const random = seeded(seed);
	const clock = virtualTime(START);
	const limiter = limiters[shape](params, START);
	const pacer = new Pacer({ now: () => clock.now });
	const stats = {
		requests,
		concurrency,
		answers: 0,
		rateLimited: 0,
		failed: 0,
		done: 0,
		reserves: 0,
		longestWaitMs: 0,
		longestGapMs: 0,
	};
	let lastReserveAt = START;
	let next = 0;

	const answer429 = (now, waitMs) => {
		const h = headers ? limiter.headers(now, headers) : {};
		if (retryAfter === 'seconds') h['Retry-After'] = String(Math.ceil(waitMs / 1000));
		if (retryAfter === 'date')
			h['retry-after'] = new Date(Math.ceil((now + waitMs) / 1000) * 1000).toUTCString();
		return h;
	};

	const send = (item, attempt) => {
		stats.reserves += 1;
		stats.longestGapMs = Math.max(stats.longestGapMs, clock.now - lastReserveAt);
		lastReserveAt = clock.now;
		const wait = pacer.reserve();
		stats.longestWaitMs = Math.max(stats.longestWaitMs, wait);
		if (attempt.retried) attempt.waited += wait;
		clock.at(clock.now + wait, () => {
			const startedAt = clock.now;
			clock.at(startedAt + 2 + random() * 3, () => {
				const decision = limiter.arrive(clock.now);
				const status = decision.ok ? 200 : 429;
				const h = decision.ok
					? headers
						? limiter.headers(clock.now, headers)
						: {}
					: answer429(clock.now, decision.waitMs);
				clock.at(clock.now + 15 + random() * 5, () => {
					if (decision.leave) decision.leave();
					clock.at(clock.now + 3 + random() * 2, () => {
						stats.answers += 1;
						pacer.onResponse({ status, headers: h, startedAt });
						if (status === 200) return finish(true);
						stats.rateLimited += 1;
						attempt.rateLimited += 1;
						const backoff =
							Math.min(8000, 500 * 2 ** (attempt.rateLimited - 1)) * (0.75 + random() * 0.5);
						const delay = parseRetryAfter(h, clock.now) ?? backoff;
						if (
							attempt.rateLimited > MAX_RATE_LIMITED ||
							attempt.waited + delay > MAX_TOTAL_WAIT_MS
						)
							return finish(false);
						attempt.waited += delay;
						attempt.retried = true;
						clock.at(clock.now + delay, () => send(item, attempt));
					});
				});
			});
		});
	};
	const finish = (ok) => {
		if (ok) stats.done += 1;
		else stats.failed += 1;
		stats.elapsedMs = clock.now - START;
		take();
	};
	const take = () => {
		if (next >= requests) return;
		const item = next++;
		send(item, { rateLimited: 0, waited: 0, retried: false });
	};
	clock.at(START, () => {
		for (let i = 0; i < concurrency; i++) take();
	});
	clock.run();
	const meanLatencyMs = 25;
	const concurrencyBound = (requests * meanLatencyMs) / concurrency;
	stats.minimumMs = Math.max(
		concurrencyBound,
		limiter.minimumMs(requests, meanLatencyMs) + meanLatencyMs,
	);
	stats.ratio = stats.elapsedMs / stats.minimumMs;
	stats.share429 = stats.rateLimited / stats.answers;
	return stats;
}

module.exports = { simulate };

// ---------- the parsers ----------

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
	test('malformed gives undefined (the caller backs off), the past gives 0, the far future is clamped', () => {
		for (const bad of ['-5', 'soon', '', '1e3', 'Infinity', 'NaN', '0x10', '3 seconds']) {
			expect(parseRetryAfter({ 'retry-after': bad }, NOW)).toBeUndefined();
		}
		expect(parseRetryAfter({ 'retry-after-ms': '-1', 'retry-after': '2' }, NOW)).toBe(2000);
		expect(parseRetryAfter({ 'retry-after': null }, NOW)).toBeUndefined();
		expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
		expect(parseRetryAfter({}, NOW)).toBeUndefined();
		expect(parseRetryAfter({ 'retry-after': new Date(NOW - 60_000).toUTCString() }, NOW)).toBe(0);
		expect(parseRetryAfter({ 'retry-after': '0' }, NOW)).toBe(0);
		expect(parseRetryAfter({ 'retry-after': '7200' }, NOW)).toBe(MAX_RETRY_AFTER_MS);
		expect(
			parseRetryAfter({ 'retry-after': new Date(NOW + 7 * 86_400_000).toUTCString() }, NOW),
		).toBe(MAX_RETRY_AFTER_MS);
		expect(parseRetryAfter({ 'retry-after-ms': '99999999' }, NOW)).toBe(MAX_RETRY_AFTER_MS);
	});
});

describe('parseRateLimitHeaders', () => {
	test('IETF RateLimit with RateLimit-Policy (drafts 05-07 and 08+)', () => {
		expect(
			parseRateLimitHeaders(
				{ ratelimit: 'limit=100, remaining=50, reset=5', 'ratelimit-policy': '100;w=60' },
				NOW,
			),
		).toEqual({
			limit: 100,
			remaining: 50,
			resetMs: 5000,
			windowMs: 60_000,
		});
		expect(
			parseRateLimitHeaders(
				{ RateLimit: '"default";r=7;t=2', 'RateLimit-Policy': '"default";q=10;w=1' },
				NOW,
			),
		).toEqual({
			limit: 10,
			remaining: 7,
			resetMs: 2000,
			windowMs: 1000,
		});
		expect(parseRateLimitHeaders({ 'ratelimit-policy': '100;w=60' }, NOW)).toBeUndefined();
	});
	test('the split RateLimit-* and X-RateLimit-* forms', () => {
		expect(
			parseRateLimitHeaders(
				{ 'ratelimit-limit': '10', 'ratelimit-remaining': '3', 'ratelimit-reset': '1' },
				NOW,
			),
		).toEqual({
			limit: 10,
			remaining: 3,
			resetMs: 1000,
		});
		expect(
			parseRateLimitHeaders(
				{
					'X-RateLimit-Limit': '100, 100;w=60',
					'X-RateLimit-Remaining': ['0'],
					'X-RateLimit-Reset': '12',
				},
				NOW,
			),
		).toEqual({
			limit: 100,
			remaining: 0,
			resetMs: 12_000,
			windowMs: 60_000,
		});
	});
	test('a large reset is an epoch time: seconds from 1e9, milliseconds from 1e12; in the past it is 0', () => {
		const headers = (reset) => ({
			'x-ratelimit-remaining': '4999',
			'x-ratelimit-reset': String(reset),
		});
		expect(parseRateLimitHeaders(headers(NOW / 1000 + 1800), NOW).resetMs).toBe(1_800_000);
		expect(parseRateLimitHeaders(headers(NOW + 2500), NOW).resetMs).toBe(2500);
		expect(parseRateLimitHeaders(headers(NOW / 1000 - 10), NOW).resetMs).toBe(0);
		expect(parseRateLimitHeaders(headers(999_999_999), NOW).resetMs).toBe(999_999_999_000);
	});
	test('missing or malformed remaining or reset gives undefined', () => {
		expect(
			parseRateLimitHeaders({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '3' }, NOW),
		).toBeUndefined();
		expect(
			parseRateLimitHeaders({ 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '3' }, NOW),
		).toBeUndefined();
		expect(
			parseRateLimitHeaders({ 'x-ratelimit-remaining': 'many', 'x-ratelimit-reset': '3' }, NOW),
		).toBeUndefined();
		expect(parseRateLimitHeaders({ ratelimit: 'garbage' }, NOW)).toBeUndefined();
		expect(parseRateLimitHeaders(undefined, NOW)).toBeUndefined();
	});
});

// ---------- the pacer, step by step ----------

function manualPacer() {
	const clock = { now: NOW };
	return { clock, pacer: new Pacer({ now: () => clock.now }) };
}

describe('Pacer', () => {
	test('an idle service costs nothing: every reserve() is 0', () => {
		const { clock, pacer } = manualPacer();
		for (let i = 0; i < 1000; i++) {
			expect(pacer.reserve()).toBe(0);
			pacer.onResponse({
				status: i % 7 ? 200 : 404,
				headers: { 'content-type': 'application/json' },
				startedAt: clock.now,
			});
			if (i % 3 === 0) clock.now += 1;
		}
	});
	test('a 429 holds every start until its Retry-After moment, bounded', () => {
		const { clock, pacer } = manualPacer();
		pacer.reserve();
		pacer.onResponse({ status: 429, headers: { 'retry-after': '2' }, startedAt: clock.now });
		expect(pacer.reserve()).toBe(2000);
		clock.now += 1500;
		expect(pacer.reserve()).toBeGreaterThanOrEqual(500);
		const far = manualPacer();
		far.pacer.reserve();
		far.pacer.onResponse({
			status: 429,
			headers: { 'retry-after': '7200' },
			startedAt: far.clock.now,
		});
		expect(far.pacer.reserve()).toBe(MAX_RETRY_AFTER_MS);
	});
	test('after the hold, requests are paced (not spaced by Retry-After), at most MAX_INTERVAL_MS apart', () => {
		const { clock, pacer } = manualPacer();
		for (let i = 0; i < 50; i++) pacer.reserve();
		clock.now += 500;
		pacer.onResponse({ status: 429, headers: { 'retry-after': '1' }, startedAt: NOW });
		const waits = Array.from({ length: 20 }, () => pacer.reserve());
		expect(waits[0]).toBe(1000);
		const gaps = waits.slice(1).map((w, i) => w - waits[i]);
		for (const gap of gaps) expect(gap).toBeGreaterThan(0);
		for (const gap of gaps) expect(gap).toBeLessThan(1000);
		expect(Math.max(...gaps)).toBeLessThanOrEqual(MAX_INTERVAL_MS);
	});
	test('one slowdown per event: 429s of requests reserved before it do not slow down again', () => {
		const spacingAfter = (rejected) => {
			const { clock, pacer } = manualPacer();
			for (let i = 0; i < 40; i++) pacer.reserve(); // 40 starts in 400 ms: 100/s
			clock.now += 400;
			for (let i = 0; i < rejected; i++)
				pacer.onResponse({ status: 429, headers: { 'retry-after': '1' }, startedAt: NOW + i });
			const first = pacer.reserve();
			return pacer.reserve() - first;
		};
		expect(spacingAfter(8)).toBeCloseTo(spacingAfter(1), 6);
	});
	test('announced limits: no more than `limit` starts per named window, before any 429', () => {
		const { clock, pacer } = manualPacer();
		pacer.reserve();
		clock.now += 30;
		pacer.onResponse({
			status: 200,
			headers: { ratelimit: 'limit=10, remaining=9, reset=1', 'ratelimit-policy': '10;w=1' },
			startedAt: NOW,
		});
		const waits = Array.from({ length: 20 }, () => pacer.reserve());
		// 10 starts in the first second (the first one included), the 11th a window after the first.
		expect(waits.filter((w) => w < 970)).toHaveLength(9);
		expect(Math.min(...waits.slice(9))).toBeGreaterThanOrEqual(970);
	});
	test('a spent quota with a far reset holds until the reset, at most MAX_RETRY_AFTER_MS', () => {
		const spent = (resetSeconds) => {
			const { clock, pacer } = manualPacer();
			pacer.reserve();
			const headers = {
				'x-ratelimit-limit': '5000',
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': String(NOW / 1000 + resetSeconds),
			};
			pacer.onResponse({ status: 200, headers, startedAt: clock.now });
			return pacer.reserve();
		};
		expect(spent(30)).toBe(30_000);
		expect(spent(7200)).toBe(MAX_RETRY_AFTER_MS);
	});
});

// ---------- the targets, on simulated services ----------

const SHAPES = {
	bucket: { rate: 100, burst: 100 },
	'bucket, burst 10': { rate: 100, burst: 10 },
	fixed: { limit: 100, windowMs: 1000 },
	sliding: { limit: 100, windowMs: 1000 },
	concurrency: { max: 5 },
};
/**
 * Not met yet: a window or a cap on requests in flight, no rate-limit headers, and a Retry-After in
 * whole seconds (rounded up; a date has whole seconds too). Each 429 event holds every request for
 * up to a second (two for a date) where the window reopened sooner, and learning the rate takes a few
 * events (a sliding window without Retry-After, at 32, also settles too low). What these reach is
 * pinned, so it cannot get worse unseen.
 */
const NOT_MET = {
	fixed: ['seconds'],
	sliding: ['seconds', 'date', 'absent'],
	concurrency: ['date'],
};
const PINNED_RATIO = 1.7;

const cases = [];
for (const [name, params] of Object.entries(SHAPES)) {
	for (const retryAfter of ['seconds', 'date', 'absent']) {
		for (const headers of name === 'concurrency' ? [false] : [false, true]) {
			for (const concurrency of [8, 32])
				cases.push({ name, params, retryAfter, headers, concurrency });
		}
	}
}

describe('2,000 requests against simulated limiters, in virtual time', () => {
	const results = [];
	afterAll(() => {
		if (process.env.PACER_REPORT) console.log(results.join('\n'));
	});
	test.each(cases)(
		'$name, Retry-After $retryAfter, headers $headers, concurrency $concurrency',
		(c) => {
			const shape = c.name.split(',')[0];
			const s = simulate({
				shape,
				params: c.params,
				requests: 2000,
				concurrency: c.concurrency,
				retryAfter: c.retryAfter,
				headers: c.headers,
			});
			results.push(
				`| ${c.name} | ${c.retryAfter} | ${c.headers ? 'yes' : 'no'} | ${c.concurrency} | ${(s.elapsedMs / 1000).toFixed(2)} s | ${(s.minimumMs / 1000).toFixed(2)} s | ${s.ratio.toFixed(2)}× | ${s.rateLimited} (${(100 * s.share429).toFixed(1)}%) |`,
			);
			expect(s.failed).toBe(0);
			expect(s.done).toBe(2000);
			expect(s.share429).toBeLessThanOrEqual(c.headers ? 0.02 : 0.1);
			const notMet = !c.headers && (NOT_MET[shape] ?? []).includes(c.retryAfter);
			expect(s.ratio).toBeLessThanOrEqual(notMet ? PINNED_RATIO : 1.25);
		},
	);

	// 6 s is the minimum (300 / 50); with a burst of 10 one 429 event costs 0.8 s of a 1 s hold.
	test.each([
		[50, 7500],
		[10, 7800],
	])(
		"the issue's case: 300 requests at 8 on a 50/s bucket (burst %i), Retry-After: 1, within %i ms",
		(burst, bound) => {
			const s = simulate({
				shape: 'bucket',
				params: { rate: 50, burst },
				requests: 300,
				concurrency: 8,
				retryAfter: 'seconds',
			});
			if (process.env.PACER_REPORT)
				console.log(
					`issue case, burst ${burst}: ${(s.elapsedMs / 1000).toFixed(2)} s, ${s.rateLimited} answered 429`,
				);
			expect(s.failed).toBe(0);
			expect(s.elapsedMs).toBeLessThanOrEqual(bound);
		},
	);

	test('a 429 storm that never clears: every request gives up after its budget, no busy loop, bounded waits', () => {
		for (const retryAfter of ['seconds', 'absent']) {
			const s = simulate({
				shape: 'concurrency',
				params: { max: 0 },
				requests: 40,
				concurrency: 8,
				retryAfter,
			});
			expect(s.done).toBe(0);
			expect(s.failed).toBe(40);
			// One reserve() per answer, each answer a 429: at most 1 + MAX_RATE_LIMITED per request.
			expect(s.reserves).toBe(s.answers);
			expect(s.reserves).toBeLessThanOrEqual(40 * (1 + MAX_RATE_LIMITED));
			expect(s.longestWaitMs).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS + 8 * MAX_INTERVAL_MS);
			// Every request waits at most MAX_TOTAL_WAIT_MS: the run ends after about 40/8 of those.
			expect(s.elapsedMs).toBeLessThanOrEqual(
				(40 / 8 + 1) * (MAX_TOTAL_WAIT_MS + MAX_RETRY_AFTER_MS),
			);
		}
	});
});
