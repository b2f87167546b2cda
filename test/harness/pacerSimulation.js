'use strict';
/**
 * The Pacer against the sandbox's own limiters (sandbox/limiters.js), in virtual time: the benchmark's
 * rate-limit shapes matrix in milliseconds instead of 35 minutes, with nothing timed on the real clock.
 *
 * Faithful to what the benchmark measures:
 * - the client is the router and the transport: P places for items in progress (Lanes); an item takes a
 *   turn (not before its own retry moment), waits it (taking it again when a 429 paused the starts
 *   meanwhile), sends, tells the Pacer every answer, and after a 429 decides with the transport's own
 *   `decideRetry` (so the retry budget is the real one); a wait of up to MAX_LENT_WAIT_MS lends its place
 *   to the next item (at most P lent), taken back before any new item;
 * - the service is the sandbox: the request arrives after 0.3–1 ms, a cap on requests in flight admits
 *   it then and holds the slot until the answer is written; the answer is written after the latency
 *   (20 ms + 0–10 ms), the rate limiters deciding then, with the sandbox's Retry-After and rate-limit
 *   header forms; the sandbox's windows are aligned on its own clock, not on the wall clock of its dates;
 * - n8n's first requests of a run are slower (measured through n8n-core: the first answers after about
 *   55 ms against 25 ms later): a request started in the run's first 50 ms takes 20-40 ms longer
 *   (SIM_WARMUP=lo,hi or simulate's warmUpExtra sets that range: a slower machine or a real
 *   `n8n start` may take 80-110 ms);
 * - n8n spends main-thread time per item (about 1.9 ms at 32 in parallel, BENCHMARKS.md): one simulated
 *   core, 1.4 ms before each start and 0.5 ms per answer, so starts queue behind each other at 32.
 */
const { createLimiter, retryAfterHeaders, rateLimitHeaders } = require('../../sandbox/limiters');
const { minimumMs, SHAPE_SETTINGS, shapeVerdict } = require('../../scripts/bench/shapes');
const { decideRetry, DEFAULT_RETRY } = require('../../dist/nodes/shared/transport/retry');
const { parseRetryAfter } = require('../../dist/nodes/shared/headers/retryAfter');
const { MAX_LENT_WAIT_MS } = require('../../dist/nodes/shared/transport');
const { RunStopped } = require('../../dist/nodes/shared/transport/pacing/pacer');
/** Deterministic randomness, so every run simulates the same thing. */
const { mulberry32: seeded } = require('../../sandbox/faults');

/** Every promise continuation queued so far has run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

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
	// Each timer's promise continuations (the Pacer's handle) settle before the next timer.
	clock.run = async () => {
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
			await settled();
		}
	};
	return clock;
}

const LATENCY_MS = 20;
const JITTER_MS = 10;
const MEAN_LATENCY_MS = LATENCY_MS + JITTER_MS / 2;
const CPU_BEFORE_START_MS = 1.4;
const WARM_UP_MS = 50;
/** How much longer than later ones the first requests take, ms: [lowest, highest]. */
const WARM_UP_EXTRA = (process.env.SIM_WARMUP ?? '20,40').split(',').map(Number);
const CPU_PER_ANSWER_MS = 0.5;
/** Not on a second: the wall clock (HTTP dates) has a phase of its own. */
const WALL_START = Date.UTC(2026, 0, 1) + 370;

/**
 * One run: `requests` requests at `parallel` in flight through one `new Pacer({now})` against the limiter
 * `rateLimit` (sandbox settings: {shape, perSecond, burst, limit, windowMs, retryAfter, headers}).
 * @param {{ latencyMs?: number, jitterMs?: number, Pacer: any, rateLimit?: object, requests: number, parallel: number, seed?: number, method?: string, limiter?: object, warmUpExtra?: number[] }} run
 */
async function simulate({
	latencyMs = LATENCY_MS,
	jitterMs = JITTER_MS,
	Pacer,
	rateLimit,
	requests,
	parallel,
	seed = 1,
	method = 'GET',
	limiter: custom,
	warmUpExtra: [warmLo, warmHi] = WARM_UP_EXTRA,
}) {
	const random = seeded(seed);
	const clock = virtualTime(WALL_START);
	// The sandbox's limiter clock is its process's performance.now(): a phase unrelated to the wall clock.
	const limiterPhase = Math.floor(random() * 1000);
	// `custom`: a limiter of the test's own, with the sandbox's interface (take, state, shape, forms);
	// without a clock of its own, it is told the ms since the run began (plus the phase).
	const since = () => clock.now - WALL_START + limiterPhase;
	const limiter = custom
		? { clock: since, ...custom }
		: createLimiter({ ...rateLimit, clock: since });
	const pacer = new Pacer({
		now: () => clock.now,
		sleep: (ms) => {
			stats.longestWaitMs = Math.max(stats.longestWaitMs, ms);
			return new Promise((resolve) => clock.at(clock.now + ms, resolve));
		},
	});
	const stats = {
		requests,
		parallel,
		answers: 0,
		rateLimited: 0,
		failed: 0,
		done: 0,
		reserves: 0,
		longestWaitMs: 0,
	};
	let cpuFreeAt = WALL_START;
	const cpu = (ms, then) => {
		cpuFreeAt = Math.max(cpuFreeAt, clock.now) + ms;
		clock.at(cpuFreeAt, then);
	};
	let next = 0;

	const answer = (allowed, waitMs) => {
		const now = clock.now;
		const limits = rateLimitHeaders(limiter.headers, limiter.state(limiter.clock()), now);
		return allowed ? limits : { ...limits, ...retryAfterHeaders(limiter.retryAfter, waitMs, now) };
	};

	const attempt = async (attempts, notBefore) => {
		if (notBefore > clock.now) return clock.at(notBefore, () => attempt(attempts, 0));
		// As the transport: the run's handle, a turn and a place in flight, refused once the run stopped.
		const calledAt = clock.now;
		let turn;
		try {
			turn = await pacer.acquire();
		} catch (error) {
			if (!(error instanceof RunStopped)) throw error;
			if (clock.now > calledAt) stats.reserves += 1; // a turn taken, given up after its wait
			return finish(false);
		}
		stats.reserves += 1;
		if (attempts.failures + attempts.rateLimited > 0) attempts.waitedMs += turn.waitedMs;
		send(attempts, turn);
	};
	const send = (attempts, turn) => {
		{
			const { startedAt } = turn;
			attempts.firstSentAt ??= startedAt;
			clock.at(startedAt + 0.3 + random() * 0.7, () => {
				const capped = limiter.shape === 'concurrency';
				const admitted = capped ? limiter.acquire() : undefined;
				const warmUp =
					startedAt - WALL_START < WARM_UP_MS ? warmLo + random() * (warmHi - warmLo) : 0;
				clock.at(clock.now + warmUp + latencyMs + random() * jitterMs, () => {
					const decision = capped
						? { allowed: admitted, waitMs: limiter.retryAfterMs }
						: limiter.take(limiter.clock());
					const headers = answer(decision.allowed, decision.waitMs);
					if (admitted) limiter.release();
					clock.at(clock.now + 0.3 + random() * 0.7, () =>
						cpu(CPU_PER_ANSWER_MS, async () => {
							stats.answers += 1;
							const status = decision.allowed ? 200 : 429;
							turn.release({ statusCode: status, headers });
							await settled(); // a request let go by this release is sent first
							if (status === 200) return finish(true);
							stats.rateLimited += 1;
							const retryAfterMs = parseRetryAfter(headers, clock.now);
							const retry = decideRetry(
								method,
								{ kind: 'status', status, retryAfterMs },
								attempts,
								DEFAULT_RETRY,
								random,
							);
							attempts.rateLimited += 1;
							if (!retry.retry) {
								if (retry.retry === false && retry.reason === 'exhausted')
									pacer.gaveUp(attempts.firstSentAt);
								return finish(false);
							}
							// As the transport: the refused request waits alone (Retry-After, else the backoff).
							attempts.waitedMs += retry.delayMs;
							const lend = retry.delayMs > 0 && retry.delayMs <= MAX_LENT_WAIT_MS;
							if (!lend || parallel < 2 || parked >= parallel)
								return attempt(attempts, clock.now + retry.delayMs);
							// Its place serves another item meanwhile; it takes one back (before new items) after.
							parked += 1;
							freeLane();
							clock.at(clock.now + retry.delayMs, () => {
								parked -= 1;
								lane(() => attempt(attempts, 0), true);
							});
						}),
					);
				});
			});
		}
	};
	const finish = (ok) => {
		if (ok) stats.done += 1;
		else {
			stats.failed += 1;
			stats.firstFailedMs ??= clock.now - WALL_START;
		}
		stats.elapsedMs = clock.now - WALL_START;
		freeLane();
	};
	// Lanes: at most `parallel` items between their start and their end, less those waiting out a 429.
	let freeLanes = parallel;
	let parked = 0;
	const returning = [];
	const lane = (run, back) => {
		if (freeLanes > 0) {
			freeLanes -= 1;
			run();
		} else if (back) returning.push(run);
	};
	const freeLane = () => {
		if (returning.length > 0) return returning.shift()();
		freeLanes += 1;
		take();
	};
	const take = () => {
		if (next >= requests || freeLanes <= 0) return;
		next += 1;
		freeLanes -= 1;
		cpu(CPU_BEFORE_START_MS, () => attempt({ failures: 0, rateLimited: 0, waitedMs: 0 }, 0));
	};
	clock.at(WALL_START, () => {
		for (let i = 0; i < parallel; i++) take();
	});
	await clock.run();
	if (custom) return stats;
	const firstWindowLeft =
		rateLimit.shape === 'fixed-window'
			? rateLimit.windowMs - (limiterPhase % rateLimit.windowMs)
			: undefined;
	stats.minimumMs = minimumMs(rateLimit, requests, parallel, firstWindowLeft);
	stats.ratio = stats.elapsedMs / stats.minimumMs;
	stats.share429 = stats.rateLimited / stats.answers;
	return stats;
}

/** The benchmark's matrix: every shape × Retry-After form, then each shape with its headers; Get 2,000 and Send 1,000 at 8 and 32. */
function benchmarkCells() {
	const { shapeLimiters } = require('../../scripts/bench/shapes');
	const cells = [];
	for (const limiter of shapeLimiters()) {
		/** @type {Array<[string, number]>} */
		const workloads = [
			['Get', 2000],
			['Send', 1000],
		];
		for (const [workload, requests] of workloads) {
			for (const parallel of [8, 32]) {
				cells.push({
					label: `${limiter.label} | ${workload} (${parallel})`,
					rateLimit: limiter.rateLimit,
					headers: limiter.headers,
					requests,
					parallel,
					method: workload === 'Send' ? 'POST' : 'GET',
				});
			}
		}
	}
	return cells;
}

/** One cell's verdict by the benchmark's own rule. */
function verdict(cell, stats) {
	return shapeVerdict({
		headers: cell.headers,
		failed: stats.failed,
		duplicates: 0,
		workload: 'get',
		ratio: stats.ratio,
		share429: stats.share429,
	});
}

module.exports = { simulate, benchmarkCells, verdict, seeded, virtualTime, SHAPE_SETTINGS };

// `node test/harness/pacerSimulation.js [seeds]`: the matrix as a table, against the built Pacer.
if (require.main === module) void main();

async function main() {
	const { Pacer } = require('../../dist/nodes/shared/transport/pacing/pacer');
	const seeds = Number(process.argv[2] ?? 3);
	let met = 0;
	let total = 0;
	for (const cell of benchmarkCells()) {
		const runs = [];
		for (let seed = 1; seed <= seeds; seed++) runs.push(await simulate({ Pacer, ...cell, seed }));
		const share = Math.max(...runs.map((r) => r.share429));
		const ok = runs.filter((r) => verdict(cell, r).met).length;
		met += ok;
		total += runs.length;
		console.log(
			`${cell.label} | ${runs.map((r) => r.ratio.toFixed(2)).join(' ')} | 429 ≤ ${(100 * share).toFixed(1)}% | failed ${runs.reduce((n, r) => n + r.failed, 0)} | ${ok}/${runs.length} met`,
		);
	}
	console.log(`met ${met} of ${total}`);
}
