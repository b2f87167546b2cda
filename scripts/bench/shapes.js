'use strict';
/**
 * The rate-limit shapes matrix (`--only ratelimit-shapes`): the Messaging node (A) at Parallel Requests 8 and
 * 32, 2,000 Gets and 1,000 Sends, against every limiter shape the sandbox offers × every Retry-After form,
 * and once per shape with rate-limit headers. Each cell runs once. Per run: wall time against the shape's
 * theoretical minimum (`minimumMs`), failed items, duplicates, and the service's 429 answers as a share of
 * all its answers.
 */
const { MEAN_LATENCY_MS } = require('./service');

/** Limiter settings of the same class as the rate-limited runs (100 requests/s, the token bucket's burst 10). */
const SHAPE_SETTINGS = {
	'token-bucket': { shape: 'token-bucket', perSecond: 100, burst: 10 },
	'fixed-window': { shape: 'fixed-window', limit: 100, windowMs: 1000 },
	'sliding-window': { shape: 'sliding-window', limit: 100, windowMs: 1000 },
	// Each request holds its slot for the service's whole latency (25 ms mean): 3 slots ≈ 120 requests/s.
	// Its 429 asks for the sandbox's default wait, 1 s (a cap cannot know when a slot frees).
	concurrency: { shape: 'concurrency', limit: 3 },
};
const SHAPE_NAMES = {
	'token-bucket': 'token bucket 100/s, burst 10',
	'fixed-window': 'fixed window 100 per 1 s',
	'sliding-window': 'sliding window 100 per 1 s',
	concurrency: 'concurrency cap 3 in flight',
};
const RETRY_AFTER_NAMES = { seconds: 'seconds', 'http-date': 'HTTP date', none: 'absent' };
/**
 * The rate-limit headers each shape sends in its headers run. A token bucket's IETF policy in the sandbox
 * names its burst over a one-second window (`q=10;w=1`), which misstates 100/s; it sends X-RateLimit-*.
 */
const HEADERS_OF = {
	'token-bucket': 'x-ratelimit',
	'fixed-window': 'ietf',
	'sliding-window': 'ietf',
	concurrency: 'x-ratelimit',
};

/** Every limiter of the matrix: each shape × Retry-After form without headers, then each shape with headers. */
function shapeLimiters() {
	const list = [];
	for (const shape of Object.keys(SHAPE_SETTINGS))
		for (const retryAfter of ['seconds', 'http-date', 'none'])
			list.push({ shape, retryAfter, headers: 'none' });
	for (const shape of Object.keys(SHAPE_SETTINGS))
		list.push({ shape, retryAfter: 'seconds', headers: HEADERS_OF[shape] });
	return list.map((l) => ({
		...l,
		rateLimit: { ...SHAPE_SETTINGS[l.shape], retryAfter: l.retryAfter, headers: l.headers },
		label: `${SHAPE_NAMES[l.shape]}, Retry-After ${RETRY_AFTER_NAMES[l.retryAfter]}${l.headers === 'none' ? '' : `, ${l.headers} headers`}`,
	}));
}

/** Which runs per limiter: workload and the workflow's variant key (A = default 8 for Get). */
const SHAPE_RUNS = [
	{ workload: 'get', key: 'A', parallel: 8, name: 'A (8)' },
	{ workload: 'get', key: 'A32', parallel: 32, name: 'A (32)' },
	{ workload: 'send', key: 'A8', parallel: 8, name: 'A (8)' },
	{ workload: 'send', key: 'A32', parallel: 32, name: 'A (32)' },
];
/**
 * For reference, each on one limiter: n8n's HTTP Request node (once), and on the cap F (3), the floor of
 * any n8n node (one expression and one httpRequest per item) keeping the cap's 3 requests in flight:
 * what n8n itself allows under that cap, whatever the pacing.
 */
const REFERENCE_RUNS = [
	{
		workload: 'get',
		key: 'B',
		parallel: null,
		name: 'B',
		once: true,
		on: { shape: 'fixed-window', retryAfter: 'seconds', headers: 'none' },
	},
	{
		workload: 'get',
		key: 'F3',
		parallel: 3,
		name: 'F (3)',
		on: { shape: 'concurrency', retryAfter: 'seconds', headers: 'none' },
	},
];

/**
 * The least wall time any client needs for `requests` requests at `parallel` in flight under the limiter:
 * the larger of what the limit allows and what the latency allows at that concurrency (⌈N/P⌉ × mean latency).
 *   token bucket r/s, burst b:  (N − b) / r + mean latency
 *   fixed window L per W:       to the end of the window the run starts in + (⌈N/L⌉ − 2) × W + mean latency
 *                               (a full first window, then the last window taken at its start)
 *   sliding window L per W:     (⌈N/L⌉ − 1) × W + mean latency
 *   concurrency cap K:          ⌈N/K⌉ × mean latency (a slot is held for the whole latency)
 * `firstWindowLeftMs`: for a fixed window, from the run's start to the end of its window.
 */
function minimumMs(rateLimit, requests, parallel, firstWindowLeftMs) {
	const latencyBound = Math.ceil(requests / parallel) * MEAN_LATENCY_MS;
	let limitBound;
	switch (rateLimit.shape) {
		case 'token-bucket':
			limitBound =
				(Math.max(0, requests - rateLimit.burst) / rateLimit.perSecond) * 1000 + MEAN_LATENCY_MS;
			break;
		case 'fixed-window': {
			const windows = Math.ceil(requests / rateLimit.limit);
			limitBound =
				windows <= 1
					? MEAN_LATENCY_MS
					: firstWindowLeftMs + (windows - 2) * rateLimit.windowMs + MEAN_LATENCY_MS;
			break;
		}
		case 'sliding-window':
			limitBound =
				(Math.ceil(requests / rateLimit.limit) - 1) * rateLimit.windowMs + MEAN_LATENCY_MS;
			break;
		case 'concurrency':
			limitBound = Math.ceil(requests / rateLimit.limit) * MEAN_LATENCY_MS;
			break;
		default:
			throw new Error(`unknown shape ${rateLimit.shape}`);
	}
	return Math.max(limitBound, latencyBound);
}

/**
 * The sandbox's fixed windows are aligned on its limiter clock (this process's performance.now()); from a
 * run's start (epoch milliseconds, as n8n records it) to the end of the window it falls in.
 */
function firstWindowLeftMs(windowMs, startedAtEpochMs) {
	const sinceOrigin = startedAtEpochMs - performance.timeOrigin;
	return (Math.floor(sinceOrigin / windowMs) + 1) * windowMs - sinceOrigin;
}

/** The issue's targets for one run: 0 failed, 0 duplicates, ≤ 1.25 × minimum, 429 ≤ 10% (2% with headers). */
function shapeVerdict(row) {
	const share429Limit = row.headers === 'none' ? 0.1 : 0.02;
	const misses = [];
	if (row.failed !== 0) misses.push('failed');
	if (row.duplicates) misses.push('duplicates');
	if (row.workload === 'send' && row.stored !== row.items) misses.push('not all stored');
	if (!(row.ratio <= 1.25)) misses.push('time');
	if (!(row.share429 <= share429Limit)) misses.push('429 share');
	return { met: misses.length === 0, misses, share429Limit };
}

/**
 * Runs the matrix: for each limiter, `sandbox.set({rateLimit})`, then each run through `runOne`,
 * `repeats` times (the reference once). `runOne(workload, key)` returns runN8n's result (plus
 * sendOrder's for Send). A cell's row is its median run by × minimum, with every run's figures in `runs`;
 * failed items and duplicates are summed over all its runs, so one bad run fails the cell.
 * @param {{ sandbox: any, sizes: any, runOne: Function, wantedShape?: (shape: string) => boolean, repeats?: number }} options
 */
async function measureShapes({ sandbox, sizes, runOne, wantedShape = () => true, repeats = 1 }) {
	const rows = [];
	for (const limiter of shapeLimiters().filter((l) => wantedShape(l.shape))) {
		const runs = [...SHAPE_RUNS];
		for (const ref of REFERENCE_RUNS) {
			const { shape, retryAfter, headers } = ref.on;
			if (
				shape === limiter.shape &&
				retryAfter === limiter.retryAfter &&
				headers === limiter.headers
			)
				runs.push(ref);
		}
		for (const run of runs) {
			const times = run.once ? 1 : repeats;
			const measured = [];
			for (let i = 0; i < times; i++)
				measured.push(await measureRun({ sandbox, sizes, runOne, limiter, run }));
			const row = cellOf(measured);
			row.verdict = row.reference ? null : shapeVerdict(row);
			rows.push(row);
			process.stderr.write(
				`  ${limiter.label}, ${run.workload} ${run.name}: ${measured.map((r) => `${(r.wallMs / 1000).toFixed(2)} s = ${r.ratio.toFixed(2)} × ${(r.minimumMs / 1000).toFixed(2)} s, ${r.requests} requests, ${r.rateLimited} 429 (${(100 * r.share429).toFixed(1)}%)`).join('; ')}, failed ${row.failed ?? 'node failed'}${row.workload === 'send' ? `, stored ${row.stored}, duplicates ${row.duplicates}` : ''}${row.verdict ? (row.verdict.met ? ', met' : `, NOT MET (${row.verdict.misses.join(', ')})`) : ''}\n`,
			);
		}
	}
	sandbox.set({ rateLimit: null });
	return rows;
}

/** One run of a cell, on a fresh limiter: an empty window, a full bucket, no slot taken. */
async function measureRun({ sandbox, sizes, runOne, limiter, run }) {
	sandbox.set({ rateLimit: limiter.rateLimit });
	const before429 = sandbox.stats.rateLimited;
	const result = await runOne(run.workload, run.key);
	const rateLimited = sandbox.stats.rateLimited - before429;
	const items = sizes[run.workload];
	const left =
		limiter.shape === 'fixed-window' && result.startedAt
			? firstWindowLeftMs(limiter.rateLimit.windowMs, result.startedAt)
			: limiter.rateLimit.windowMs;
	const minimum = minimumMs(limiter.rateLimit, items, run.parallel ?? 8, left);
	return {
		...result,
		limiter: limiter.label,
		shape: limiter.shape,
		retryAfter: limiter.retryAfter,
		headers: limiter.headers,
		workload: run.workload,
		key: run.key,
		parallel: run.parallel,
		name: run.name,
		reference: REFERENCE_RUNS.includes(run),
		items,
		rateLimited,
		share429: result.requests ? rateLimited / result.requests : 0,
		minimumMs: minimum,
		ratio: result.wallMs / minimum,
	};
}

/** A cell's row from its runs: the median run by × minimum; failures and duplicates of all runs. */
function cellOf(measured) {
	const byRatio = [...measured].sort((a, b) => a.ratio - b.ratio);
	const median = byRatio[Math.floor((byRatio.length - 1) / 2)];
	const sum = (key) =>
		measured.some((r) => r[key] === null || r[key] === undefined)
			? median[key]
			: measured.reduce((total, r) => total + r[key], 0);
	return {
		...median,
		failed: measured.some((r) => r.failed === null) ? null : sum('failed'),
		duplicates: sum('duplicates'),
		stored: median.stored === undefined ? undefined : Math.min(...measured.map((r) => r.stored)),
		runs: measured.map((r) => ({ ratio: r.ratio, share429: r.share429 })),
	};
}

module.exports = {
	SHAPE_SETTINGS,
	shapeLimiters,
	minimumMs,
	shapeVerdict,
	measureShapes,
};
