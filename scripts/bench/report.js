'use strict';
/** The report `npm run bench` writes: BENCHMARKS.md (or .bench/BENCHMARKS.partial.md for a narrowed run). */
const os = require('node:os');
const { LATENCY_MS, JITTER_MS, MEAN_LATENCY_MS, RATE } = require('./service');
const { SHAPE_SETTINGS, shapeLimiters, minimumMs } = require('./shapes');

const SHAPE_TARGET_PREFIX = 'rate-limit shape, ';
const SHAPES_TITLE = '## Rate-limit shapes';

function fmt(ms) {
	return ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`;
}

/** The issue's targets, each with its measured figure; rows missing from a narrowed run are left out. */
function targetRows(normal, limited, trigger, sizes, shapes) {
	const find = (rows, workload, key) =>
		rows.find((r) => r.workload.startsWith(workload) && r.key === key);
	const rows = [];
	// `limit`: the target's bound; without one the row is a reference figure, with no verdict.
	const ratio = (label, a, b, limit) => {
		if (!a || !b) return;
		const value = a.wallMs / b.wallMs;
		rows.push([
			label,
			`${value.toFixed(2)} (${fmt(a.wallMs)} / ${fmt(b.wallMs)})`,
			limit === undefined ? '' : value <= limit ? 'met' : 'not met',
		]);
	};
	for (const [workload, name] of [
		['Get message', 'Get'],
		['Mute', 'Mute'],
	]) {
		ratio(
			`A/C ≤ 1.3, ${name}, 8 in flight`,
			find(normal, workload, 'A'),
			find(normal, workload, 'C 8'),
			1.3,
		);
		ratio(
			`A/C ≤ 1.3, ${name}, 32 in flight`,
			find(normal, workload, 'A32'),
			find(normal, workload, 'C 32'),
			1.3,
		);
		ratio(
			`the floor, F/C, ${name}, 8 in flight (what any node in this n8n reaches)`,
			find(normal, workload, 'F8'),
			find(normal, workload, 'C 8'),
		);
		ratio(
			`the floor, F/C, ${name}, 32 in flight`,
			find(normal, workload, 'F32'),
			find(normal, workload, 'C 32'),
		);
		ratio(
			`the package's own cost, A/F, ${name}, 8 in flight`,
			find(normal, workload, 'A'),
			find(normal, workload, 'F8'),
		);
		ratio(
			`the package's own cost, A/F, ${name}, 32 in flight`,
			find(normal, workload, 'A32'),
			find(normal, workload, 'F32'),
		);
		ratio(
			`A (32) ≤ 1.5 × B, ${name}`,
			find(normal, workload, 'A32'),
			find(normal, workload, 'B'),
			1.5,
		);
	}
	ratio(
		'A/C ≤ 1.3, Send, 1 in flight',
		find(normal, 'Send', 'A'),
		find(normal, 'Send', 'C 1'),
		1.3,
	);
	ratio(
		'A/C ≤ 1.3, Get Many Return All, 1 in flight',
		find(normal, 'Get Many', 'A'),
		find(normal, 'Get Many', 'C 1'),
		1.3,
	);
	const send = find(normal, 'Send', 'A');
	if (send)
		rows.push([
			'Send: all delivered, in item order',
			`${send.stored} of ${sizes.send} stored, ${send.outOfOrder} out of order`,
			send.stored === sizes.send && send.outOfOrder === 0 ? 'met' : 'not met',
		]);
	for (const row of limited.filter((r) => r.key === 'A' || r.key === 'A32')) {
		const ok = row.failed === 0 && !row.duplicates && row.ratio <= 1.25;
		rows.push([
			`rate limit, ${row.workload}, ${row.variant}: 0 failed, 0 duplicates, ≤ 1.25 × minimum`,
			`${row.failed} failed, ${row.duplicates ?? 0} duplicates, ${row.ratio.toFixed(2)} × minimum`,
			ok ? 'met' : 'not met',
		]);
	}
	rows.push(...shapeTargetRows(shapes ?? []));
	if (trigger)
		rows.push([
			'a poll with nothing new: one request',
			`${trigger.quiet.requests} request(s)`,
			trigger.quiet.requests === 1 ? 'met' : 'not met',
		]);
	return rows;
}

const runName = (row) => `${row.workload === 'get' ? 'Get' : 'Send'} ${row.name}`;
const pct = (share) => `${(100 * share).toFixed(1)}%`;

/** One Targets row per limiter of the shapes matrix: its four runs (Get and Send, 8 and 32) together. */
function shapeTargetRows(shapes) {
	const rows = [];
	for (const limiter of shapeLimiters()) {
		const runs = shapes.filter((r) => r.limiter === limiter.label && !r.reference);
		if (runs.length === 0) continue;
		const bound = `${runs[0].verdict.share429Limit * 100}%`;
		const failed = runs.reduce((sum, r) => sum + (r.failed ?? r.items), 0);
		const duplicates = runs.reduce((sum, r) => sum + (r.duplicates ?? 0), 0);
		const figures = runs
			.map((r) => `${runName(r)} ${r.ratio.toFixed(2)}×, ${pct(r.share429)}`)
			.join('; ');
		const misses = runs
			.filter((r) => !r.verdict.met)
			.map((r) => `${runName(r)}: ${r.verdict.misses.join(', ')}`);
		rows.push([
			`${SHAPE_TARGET_PREFIX}${limiter.label}: 0 failed, 0 duplicates, ≤ 1.25 × minimum, 429 ≤ ${bound}`,
			`${failed} failed, ${duplicates} duplicates; ${figures}`,
			misses.length === 0 ? 'met' : `not met (${misses.join('; ')})`,
		]);
	}
	return rows;
}

/** How many runs each cell had: the median decides, every run's failures and duplicates count. */
function cellRuns(shapes) {
	const runs = Math.max(...shapes.map((r) => r.runs?.length ?? 1));
	return runs > 1
		? `**Median of ${runs} runs per cell** (by × minimum; its wall time, requests and 429s are that run's, the range of all runs in brackets; failed items and duplicates are summed over all runs)`
		: `**One run per cell** (not medians: ${shapes.length} runs of a real n8n on 2 shared cores)`;
}

/** The range of a cell's runs, when it had more than one. */
const spread = (row) =>
	row.runs?.length > 1
		? ` (${Math.min(...row.runs.map((r) => r.ratio)).toFixed(2)}–${Math.max(...row.runs.map((r) => r.ratio)).toFixed(2)})`
		: '';

/** The shapes matrix's section: how it was measured, the minimum per shape, one row per cell. */
function shapesSection(shapes, { started, versions, sizes }) {
	const lines = [SHAPES_TITLE, ''];
	lines.push(
		`Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench\` (\`--only ratelimit-shapes\` runs only this) on ${machine()}; Node ${process.version}, n8n ${versions.n8n}, n8n-nodes-messaging ${versions.package}. The Messaging node (A) at Parallel Requests 8 and 32, ${sizes.get} Gets and ${sizes.send} Sends (Send's Parallel Requests raised from its default 1), against each limiter shape of the sandbox × each form of Retry-After, then once per shape with rate-limit headers (and Retry-After in seconds); the same ${LATENCY_MS} ms + 0–${JITTER_MS} ms of latency. ${cellRuns(shapes)}; for reference only, B is the HTTP Request node on one limiter, and F (3) on the cap is the floor of any n8n node (one expression and one httpRequest per item) keeping its 3 requests in flight: what n8n itself allows under that cap.`,
		'',
		'Limiters (each run starts on a fresh one): token bucket 100 requests/s, burst 10 (the rate-limited runs above); fixed window 100 requests per 1 s window, windows aligned on the service\'s clock, reset at each end; sliding window at most 100 requests in any trailing 1 s; concurrency cap at most 3 requests in the service at once (a request holds its slot for its whole latency, so about 120 requests/s), its 429 asking for 1 s. Retry-After: whole seconds rounded up (the default), an HTTP date (whole seconds, rounded up), or absent. Headers: the token bucket and the cap send `X-RateLimit-Limit/-Remaining/-Reset` (reset in seconds), the windows the IETF draft\'s `RateLimit-Policy: "default";q=100;w=1` and `RateLimit: "default";r=…;t=…` (the sandbox\'s IETF policy for a token bucket names its burst over one second, `q=10;w=1`, which misstates 100/s, so the bucket sends X-RateLimit-*).',
		'',
		`Theoretical minimum of N requests at P in flight, mean latency λ = ${MEAN_LATENCY_MS} ms: the larger of ⌈N/P⌉ × λ (what the latency allows) and what the limiter allows: token bucket r/s with burst b: (N − b)/r + λ; fixed window L per W: from the node's start to the end of its first window (measured per run: the node's start time against the service's window clock) + (⌈N/L⌉ − 2) × W + λ, i.e. a full first window, and the last window used from its first instant; sliding window L per W: (⌈N/L⌉ − 1) × W + λ; concurrency cap K: ⌈N/K⌉ × λ (each slot busy for the whole latency, nothing else). So for ${sizes.get} Gets: ${minimaText(sizes.get)}; for ${sizes.send} Sends: ${minimaText(sizes.send)}. Wall time is the node's own execution time as n8n records it; 429 share = the service's 429 answers over all requests it answered during the run. Targets: 0 failed, 0 duplicates (Sends stored twice; all ${sizes.send} stored), ≤ 1.25 × minimum, 429 ≤ 10% of requests (≤ 2% with rate-limit headers).`,
		'',
	);
	lines.push(
		'| limiter | run | wall time | minimum | × minimum | requests | 429 answered | items failed | stored / duplicates | targets |',
		'|---|---|---|---|---|---|---|---|---|---|',
	);
	for (const r of shapes) {
		const verdict = r.reference
			? 'reference'
			: r.verdict.met
				? 'met'
				: `not met (${r.verdict.misses.join(', ')})`;
		lines.push(
			`| ${r.limiter} | ${runName(r)} | ${fmt(r.wallMs)} | ${fmt(r.minimumMs)} | ${r.ratio.toFixed(2)}×${spread(r)} | ${r.requests} | ${r.rateLimited} (${pct(r.share429)}) | ${r.failed === null ? 'node failed' : r.failed} | ${r.workload === 'send' ? `${r.stored} / ${r.duplicates}` : ''} | ${verdict} |`,
		);
	}
	lines.push('');
	return lines.join('\n');
}

/**
 * A shapes-only run written into an existing BENCHMARKS.md: its Targets rows replace the previous shape
 * rows (or follow the last target), its section replaces the previous one (or goes before the trigger
 * poll's); every other figure and the hand-written reading stay.
 */
function spliceShapes(existing, shapes, meta) {
	const lines = existing.split('\n').filter((l) => !l.startsWith(`| ${SHAPE_TARGET_PREFIX}`));
	const targetsAt = lines.indexOf('## Targets');
	if (targetsAt !== -1) {
		let end = targetsAt + 1;
		while (end < lines.length && !(lines[end].startsWith('|') && lines[end + 1] === '')) end += 1;
		const newRows = shapeTargetRows(shapes).map(([t, m, v]) => `| ${t} | ${m} | ${v} |`);
		lines.splice(end + 1, 0, ...newRows);
	}
	const start = lines.indexOf(SHAPES_TITLE);
	const section = shapesSection(shapes, meta).split('\n');
	if (start !== -1) {
		let end = start + 1;
		while (end < lines.length && !lines[end].startsWith('## ')) end += 1;
		lines.splice(start, end - start, ...section);
	} else {
		let at = lines.findIndex((l) => l.startsWith('## Trigger poll') || l.startsWith('## Reading'));
		if (at === -1) at = lines.length;
		lines.splice(at, 0, ...section);
	}
	return lines.join('\n');
}

/** The minimum of each shape for `requests` at 8 in flight (a fixed window's from its earliest to latest start). */
function minimaText(requests) {
	const seconds = (ms) => (ms / 1000).toFixed(2);
	return Object.values(SHAPE_SETTINGS)
		.map((settings) => {
			const at = (left) => seconds(minimumMs(settings, requests, 8, left));
			const value =
				settings.shape === 'fixed-window' ? `${at(0)}–${at(settings.windowMs)}` : at(undefined);
			return `${value} s (${settings.shape})`;
		})
		.join(', ');
}

const machine = () =>
	`${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}`;

/** BENCHMARKS.md: how it was measured, the targets, the tables. */
function report({
	normal,
	limited,
	shapes,
	trigger,
	micro,
	started,
	versions,
	sizes,
	repeats,
	files,
}) {
	const lines = [];
	const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
	lines.push('# Benchmarks', '');
	lines.push(
		`Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench\` on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}; Node ${process.version}, n8n ${versions.n8n}, n8n-nodes-messaging ${versions.package}.`,
	);
	lines.push(
		`Service: the sandbox on loopback with ${LATENCY_MS} ms + 0–${JITTER_MS} ms (random) of latency per request. Medians of ${repeats} run(s) (spread = (max − min) / median of wall time); rate-limited runs once each.`,
		'',
	);
	lines.push(
		'- **A**: the Messaging node in n8n (`n8n execute`), Parallel Requests as shown (8 is the default, Send 1).',
	);
	lines.push(
		"- **B**: n8n's HTTP Request node 4.2 doing the same calls with a Header Auth credential, defaults (plus Continue On Fail so failed items are counted); **B+retry**: Retry On Fail on (n8n's defaults: 3 tries, 1 s apart, the whole node again), no Continue On Fail.",
	);
	lines.push(
		'- **C**: a plain undici script with keep-alive in its own process, at the concurrency shown ("all" = every request at once).',
	);
	lines.push(
		'- **F**: the floor of any node in n8n (`scripts/bench/floor-node`, benchmark only): per item one parameter expression and one `this.helpers.httpRequest` with a literal header, nothing else (no credential, checks, retries or error handling), at the concurrency shown.',
	);
	lines.push(
		"- Wall time is the node's own execution time as n8n records it (all tries for B+retry); requests are counted by the service; peak memory is the n8n process's peak RSS.",
		'',
	);

	const targets = targetRows(normal, limited, trigger, sizes, shapes);
	if (targets.length) {
		lines.push('## Targets', '', '| target | measured | |', '|---|---|---|');
		for (const [target, measured, verdict] of targets)
			lines.push(`| ${target} | ${measured} | ${verdict} |`);
		lines.push('');
	}

	const table = (title, rows, minimum) => {
		lines.push(`## ${title}`, '');
		lines.push(
			'| workload | variant | wall time | requests | items failed | out of order | duplicates | peak RSS | vs A | spread |',
		);
		lines.push('|---|---|---|---|---|---|---|---|---|---|');
		for (const row of rows) {
			const ratio = row.ratio === undefined ? '' : `${row.ratio.toFixed(2)}×`;
			const failed = row.failed === null ? 'node failed' : row.failed;
			lines.push(
				`| ${row.workload} | ${row.variant} | ${fmt(row.wallMs)} | ${row.requests} | ${failed} | ${row.outOfOrder ?? ''} | ${row.duplicates ?? ''} | ${row.rssPeakMb ? `${row.rssPeakMb} MB` : ''} | ${ratio} | ${row.spread ? `${(row.spread * 100).toFixed(0)}%` : ''} |`,
			);
		}
		if (minimum) lines.push('', minimum);
		lines.push('');
	};
	table(`Idle service (${LATENCY_MS}–${LATENCY_MS + JITTER_MS} ms latency)`, normal);
	table(
		`Rate-limited service (${RATE.perSecond} requests/s token bucket, burst ${RATE.burst}, 429 with Retry-After)`,
		limited,
		`Theoretical minimum: the larger of the rate limit's (${sizes.get} requests ${((sizes.get - RATE.burst) / RATE.perSecond).toFixed(1)} s, ${sizes.send} requests ${((sizes.send - RATE.burst) / RATE.perSecond).toFixed(1)} s, ${sizes.many / 100} pages ${((sizes.many / 100 - RATE.burst) / RATE.perSecond).toFixed(2)} s) and, where that is not what binds (Send and Get Many go one request at a time), the fastest client's time on the idle service at the same concurrency: C's row in the idle table (at least ${MEAN_LATENCY_MS} ms of mean latency per request, plus the service's own work). "vs A" is the variant's wall time over A's; on A's rows it is A's wall time over that minimum.`,
	);
	if (shapes?.length) lines.push(shapesSection(shapes, { started, versions, sizes }));
	if (files) lines.push(files);
	if (trigger) {
		lines.push(
			`## Trigger poll (the real \`poll()\` through n8n-core's PollContext, ${LATENCY_MS}–${LATENCY_MS + JITTER_MS} ms latency, 5,000 messages of history)`,
			'',
		);
		lines.push('| poll | wall time | requests | messages emitted |', '|---|---|---|---|');
		lines.push(
			`| nothing new | ${(trigger.quiet.wallMs / 1000).toFixed(3)} s | ${trigger.quiet.requests} | ${trigger.quiet.emitted} |`,
		);
		lines.push(
			`| ${sizes.poll} new | ${(trigger.busy.wallMs / 1000).toFixed(3)} s | ${trigger.busy.requests} | ${trigger.busy.emitted} |`,
		);
		lines.push('', `Stored state after these polls: ${trigger.stateBytes} bytes.`, '');
	}
	if (micro) {
		lines.push(
			'## Per-item work without the network (micro-benchmark)',
			'',
			'| work | µs per item |',
			'|---|---|',
		);
		for (const [name, us] of Object.entries(micro)) lines.push(`| ${name} | ${us.toFixed(2)} |`);
		lines.push('');
	}
	return lines.join('\n');
}

module.exports = { report, spliceShapes };
