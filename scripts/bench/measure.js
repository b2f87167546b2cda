'use strict';
/**
 * Running and timing the variants: an n8n variant through `n8n execute` (the node's own execution time as n8n
 * records it, and the n8n process's peak RSS), C through scripts/bench/undici-client.js in its own process;
 * medians over repeats; a plan's rows with their "vs A" ratios.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../lib/n8n');
const { MEAN_LATENCY_MS, RATE, TOKEN } = require('./service');
const { requestCount, inFlight, variantLabel, workloadTitle } = require('./workloads');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function watchPeakRss(child) {
	let peak = 0;
	const read = () => {
		try {
			const kb = Number(
				/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0,
			);
			if (kb > peak) peak = kb;
		} catch {
			// the process has ended
		}
	};
	const timer = setInterval(read, 50);
	child.on('exit', () => clearInterval(timer));
	return () => peak;
}

/** One `n8n execute` of a bench workflow; a failed node is a result (B+retry), not an error. */
async function runN8n(sandbox, userFolder, id, cpuProfileDir) {
	let peak = () => 0;
	const before = sandbox.stats.requests;
	let run;
	let failedNode = false;
	try {
		run = await n8n.executeWorkflow(userFolder, id, {
			timeoutMs: 900_000,
			onSpawn: (child) => (peak = watchPeakRss(child)),
			env: cpuProfileDir
				? {
						NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfileDir} --cpu-prof-name=${id}-${Date.now()}.cpuprofile`,
					}
				: {},
		});
	} catch (error) {
		run = error.runData;
		failedNode = true;
	}
	const task = run?.data?.resultData?.runData?.Target?.at(-1);
	const tries = run?.data?.resultData?.runData?.Target?.length ?? 0;
	const output = task?.data?.main?.[0] ?? [];
	const wallMs = (run?.data?.resultData?.runData?.Target ?? []).reduce(
		(sum, t) => sum + (t.executionTime ?? 0),
		0,
	);
	return {
		wallMs,
		startedAt: run?.data?.resultData?.runData?.Target?.[0]?.startTime,
		requests: sandbox.stats.requests - before,
		failed:
			failedNode && output.length === 0
				? null
				: output.filter((i) => i.json?.error !== undefined).length,
		outputItems: output.length,
		nodeFailed: failedNode || !!task?.error,
		tries,
		rssPeakMb: Math.round(peak() / 1024),
	};
}

async function runUndici(sandbox, service, sizes, workload, items, concurrency) {
	const before = sandbox.stats.requests;
	const input = JSON.stringify({
		baseUrl: sandbox.url,
		token: TOKEN,
		workload,
		items: workload === 'getMany' ? Array.from({ length: sizes.many }) : items,
		concurrency,
		conversationId: workload === 'send' ? service.sendConversation : service.manyConversation,
	});
	const stdout = await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [path.join(__dirname, 'undici-client.js'), input], {
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		child.on('exit', (code) =>
			code === 0 ? resolve(out) : reject(new Error(`undici client exited with ${code}`)),
		);
	});
	const result = JSON.parse(stdout.trim().split('\n').at(-1));
	return {
		wallMs: result.wallMs,
		requests: sandbox.stats.requests - before,
		failed: result.failed,
		rssPeakMb: Math.round(result.rssPeakKb / 1024),
	};
}

/** `times` runs of `fn`: the median run, with the median wall time and its spread; one progress line. */
async function measure(label, times, fn) {
	const runs = [];
	for (let r = 0; r < times; r++) runs.push(await fn());
	const wall = runs.map((x) => x.wallMs);
	const summary = {
		...runs[Math.floor(runs.length / 2)],
		wallMs: median(wall),
		spread: runs.length > 1 ? (Math.max(...wall) - Math.min(...wall)) / median(wall) : 0,
		runs: runs.length,
	};
	process.stderr.write(
		`  ${label}: ${(summary.wallMs / 1000).toFixed(2)} s, ${summary.requests} requests, failed ${summary.failed ?? 'node failed'}${summary.outOfOrder !== undefined ? `, out of order ${summary.outOfOrder}, duplicates ${summary.duplicates}, stored ${summary.stored}` : ''}\n`,
	);
	return summary;
}

/**
 * The report rows of a plan: each wanted variant measured `times` with `runOne(workload, variant)`, and its
 * ratio: on the idle service its wall time over A's; rate-limited, A's over the theoretical minimum.
 */
async function measurePlan({ plan, times, limitedRun, idleRows = [], runOne, options }) {
	const { sizes } = options;
	const rows = [];
	for (const [workload, all] of plan) {
		const list = all.filter(options.wantedVariant);
		if (!options.wanted(workload) || list.length === 0) continue;
		const title = workloadTitle(workload, sizes);
		const byVariant = {};
		for (const variant of list) {
			const name = variantLabel(workload, variant);
			const result = await measure(
				`${limitedRun ? 'limited ' : ''}${workload} ${name}`,
				times,
				() => runOne(workload, variant),
			);
			byVariant[variant] = result;
			rows.push({ workload: title, variant: name, ...result, key: variant });
		}
		const a = byVariant.A;
		const requests = requestCount(workload, sizes);
		// The floor: what the rate limit allows, or, when that is not what binds (requests one or a few at a
		// time), the fastest client's time on the idle service at the same concurrency (C: latency plus the
		// service's own work); the mean latency per round when C was not run.
		const idleC = (key) =>
			idleRows.find((r) => r.workload === title && r.key === `C ${inFlight(workload, key)}`)
				?.wallMs;
		const minimumMs = (key) =>
			Math.max(
				(Math.max(0, requests - RATE.burst) / RATE.perSecond) * 1000,
				idleC(key) ?? Math.ceil(requests / inFlight(workload, key)) * MEAN_LATENCY_MS,
			);
		for (const row of rows.filter((r) => r.workload === title)) {
			if (limitedRun && (row.key === 'A' || row.key === 'A32'))
				row.ratio = row.wallMs / minimumMs(row.key);
			else if (row.key !== 'A' && a) row.ratio = row.wallMs / a.wallMs;
		}
	}
	return rows;
}

module.exports = { runN8n, runUndici, measure, measurePlan };
