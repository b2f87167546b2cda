'use strict';
/**
 * The Pacer outside the benchmark's matrix, in virtual time: limiters of other sizes (buckets of 10-500/s,
 * one with a burst of 4, windows of 20 per second to 300 per 10 s, caps of 1 and 10), 5 and 100 ms of
 * latency, 4 and 32 in flight, Retry-After in seconds or absent, and in seconds with X-RateLimit-* headers
 * (a window's then named by no header: its reset is the only sign of it); 3 seeds each. Not in `npm test`: a tool to compare two
 * commits' pacing where no target is pinned.
 *
 *   node test/harness/pacerSweep.js > a.json   (on one build of dist/)
 *   node test/harness/pacerSweep.js a.json     (on another: each setting against a.json)
 *
 * Prints, per setting, the median run's seconds, the worst run's 429 share and the failed items.
 */
const fs = require('fs');
const { simulate } = require('./pacerSimulation');
const { Pacer } = require('../../dist/nodes/shared/transport/pacing/pacer');

const LIMITERS = [
	{ shape: 'token-bucket', perSecond: 10, burst: 5 },
	{ shape: 'token-bucket', perSecond: 100, burst: 4 },
	{ shape: 'token-bucket', perSecond: 50, burst: 50 },
	{ shape: 'token-bucket', perSecond: 300, burst: 20 },
	{ shape: 'token-bucket', perSecond: 500, burst: 100 },
	{ shape: 'fixed-window', limit: 20, windowMs: 1000 },
	{ shape: 'fixed-window', limit: 300, windowMs: 10_000 },
	{ shape: 'sliding-window', limit: 50, windowMs: 1000 },
	{ shape: 'sliding-window', limit: 300, windowMs: 5000 },
	{ shape: 'concurrency', limit: 1 },
	{ shape: 'concurrency', limit: 10 },
];

async function sweep() {
	const results = [];
	for (const limiter of LIMITERS)
		for (const [retryAfter, headers] of [
			['seconds', 'none'],
			['none', 'none'],
			['seconds', 'x-ratelimit'],
		])
			for (const latencyMs of [5, 100])
				for (const parallel of [4, 32]) {
					// The slowest limiters get fewer requests, so a run stays within the retry budget's reach.
					const requests = limiter.perSecond === 10 || limiter.limit === 20 ? 200 : 1000;
					const runs = [];
					for (const seed of [1, 2, 3])
						runs.push(
							await simulate({
								Pacer,
								rateLimit: { ...limiter, retryAfter, headers },
								latencyMs,
								jitterMs: latencyMs / 2,
								parallel,
								requests,
								seed,
							}),
						);
					const { shape, ...size } = limiter;
					results.push({
						setting: `${shape} ${JSON.stringify(size)} Retry-After ${retryAfter}${headers === 'none' ? '' : `, ${headers} headers`}, ${latencyMs} ms, ${parallel} in flight, ${requests}`,
						seconds: runs.map((r) => r.elapsedMs / 1000).sort((a, b) => a - b)[1],
						share429: Math.max(...runs.map((r) => r.share429)),
						failed: runs.reduce((n, r) => n + r.failed, 0),
					});
				}
	return results;
}

if (require.main === module) void main();

async function main() {
	const results = await sweep();
	const against = process.argv[2] && fs.readFileSync(process.argv[2], 'utf8');
	if (!against) {
		process.stdout.write(`${JSON.stringify(results, null, 1)}\n`);
	} else {
		const before = new Map(JSON.parse(against).map((r) => [r.setting, r]));
		let faster = 0;
		let slower = 0;
		for (const r of results) {
			const b = before.get(r.setting);
			if (!b) continue;
			const ratio = r.seconds / b.seconds;
			if (ratio < 0.95) faster += 1;
			if (ratio > 1.05) slower += 1;
			if (ratio < 0.95 || ratio > 1.05 || r.failed !== b.failed)
				console.log(
					`${ratio.toFixed(2)}× ${r.setting}: ${b.seconds.toFixed(2)} s → ${r.seconds.toFixed(2)} s, 429 ${(100 * b.share429).toFixed(1)}% → ${(100 * r.share429).toFixed(1)}%, failed ${b.failed} → ${r.failed}`,
				);
		}
		const mean = (list) => (100 * list.reduce((n, r) => n + r.share429, 0)) / list.length;
		console.log(
			`${results.length} settings: ${faster} faster by more than 5%, ${slower} slower; failed ${[...before.values()].reduce((n, r) => n + r.failed, 0)} → ${results.reduce((n, r) => n + r.failed, 0)}; mean worst 429 share ${mean([...before.values()]).toFixed(2)}% → ${mean(results).toFixed(2)}%`,
		);
	}
}

module.exports = { sweep };
