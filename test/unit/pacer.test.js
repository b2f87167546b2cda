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
				if (tokens >= 1) return (tokens -= 1), { ok: true };
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
			if (current !== window) (window = current), (used = 0);
		};
		const toEnd = (now) => (window + 1) * windowMs - now;
		return {
			arrive(now) {
				sync(now);
				if (used < limit) return (used += 1), { ok: true };
				return { ok: false, waitMs: toEnd(now) };
			},
			headers(now, form) {
				sync(now);
				const reset = Math.ceil(toEnd(now) / 1000);
				if (form === 'unnamed') {
					return { 'x-ratelimit-limit': `${limit}`, 'x-ratelimit-remaining': `${limit - used}`, 'x-ratelimit-reset': `${reset}` };
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
				if (log.length < limit) return log.push(now), { ok: true };
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
				if (inService < max) return (inService += 1), { ok: true, leave: () => (inService -= 1) };
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
function simulate({ shape, params, requests, concurrency, retryAfter = 'seconds', headers = false, seed = 1 }) {
	const random = seeded(seed);
	const clock = virtualTime(START);
	const limiter = limiters[shape](params, START);
	const pacer = new Pacer({ now: () => clock.now });
	const stats = { requests, concurrency, answers: 0, rateLimited: 0, failed: 0, done: 0, reserves: 0, longestWaitMs: 0 };
	let next = 0;

	const answer429 = (now, waitMs) => {
		const h = headers ? limiter.headers(now, headers) : {};
		if (retryAfter === 'seconds') h['Retry-After'] = String(Math.ceil(waitMs / 1000));
		if (retryAfter === 'date') h['retry-after'] = new Date(Math.ceil((now + waitMs) / 1000) * 1000).toUTCString();
		return h;
	};

	const send = (item, attempt) => {
		stats.reserves += 1;
		const wait = pacer.reserve();
		stats.longestWaitMs = Math.max(stats.longestWaitMs, wait);
		if (attempt.retried) attempt.waited += wait;
		clock.at(clock.now + wait, () => {
			const startedAt = clock.now;
			clock.at(startedAt + 2 + random() * 3, () => {
				const decision = limiter.arrive(clock.now);
				const status = decision.ok ? 200 : 429;
				const h = decision.ok ? (headers ? limiter.headers(clock.now, headers) : {}) : answer429(clock.now, decision.waitMs);
				clock.at(clock.now + 15 + random() * 5, () => {
					if (decision.leave) decision.leave();
					clock.at(clock.now + 3 + random() * 2, () => {
						stats.answers += 1;
						pacer.onResponse({ status, headers: h, startedAt });
						if (status === 200) return finish(true);
						stats.rateLimited += 1;
						attempt.rateLimited += 1;
						const backoff = Math.min(8000, 500 * 2 ** (attempt.rateLimited - 1)) * (0.75 + random() * 0.5);
						const delay = parseRetryAfter(h, clock.now) ?? backoff;
						if (attempt.rateLimited > MAX_RATE_LIMITED || attempt.waited + delay > MAX_TOTAL_WAIT_MS) return finish(false);
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
	stats.minimumMs = Math.max(concurrencyBound, limiter.minimumMs(requests, meanLatencyMs) + meanLatencyMs);
	stats.ratio = stats.elapsedMs / stats.minimumMs;
	stats.share429 = stats.rateLimited / stats.answers;
	return stats;
}

module.exports = { simulate };

if (require.main === module) {
	const shapes = {
		bucket: { rate: 100, burst: 100 },
		fixed: { limit: 100, windowMs: 1000 },
		sliding: { limit: 100, windowMs: 1000 },
		concurrency: { max: 5 },
	};
	for (const [shape, params] of Object.entries(shapes)) {
		for (const retryAfter of ['seconds', 'date', 'absent']) {
			for (const headers of shape === 'concurrency' ? [false] : [false, true]) {
				for (const concurrency of [8, 32]) {
					const s = simulate({ shape, params, requests: 2000, concurrency, retryAfter, headers });
					console.log(
						`${shape.padEnd(12)} RA=${retryAfter.padEnd(7)} headers=${headers ? 'y' : 'n'} C=${String(concurrency).padEnd(2)} ` +
							`time ${(s.elapsedMs / 1000).toFixed(2)}s / min ${(s.minimumMs / 1000).toFixed(2)}s = ${s.ratio.toFixed(3)}  ` +
							`429 ${s.rateLimited} (${(100 * s.share429).toFixed(1)}%) failed ${s.failed}`,
					);
				}
			}
		}
	}
}
