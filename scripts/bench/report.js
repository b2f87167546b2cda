'use strict';
/** The report `npm run bench` writes: BENCHMARKS.md (or .bench/BENCHMARKS.partial.md for a narrowed run). */
const os = require('node:os');
const { LATENCY_MS, JITTER_MS, MEAN_LATENCY_MS, RATE } = require('./service');

function fmt(ms) {
	return ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`;
}

/** The issue's targets, each with its measured figure; rows missing from a narrowed run are left out. */
function targetRows(normal, limited, trigger, sizes) {
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
	if (trigger)
		rows.push([
			'a poll with nothing new: one request',
			`${trigger.quiet.requests} request(s)`,
			trigger.quiet.requests === 1 ? 'met' : 'not met',
		]);
	return rows;
}

/** BENCHMARKS.md: how it was measured, the targets, the tables. */
function report({ normal, limited, trigger, micro, started, versions, sizes, repeats }) {
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

	const targets = targetRows(normal, limited, trigger, sizes);
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

module.exports = { report };
