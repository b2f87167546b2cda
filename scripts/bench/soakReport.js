'use strict';
/** The soak bench's section of BENCHMARKS.md (scripts/bench/soak.js), and the splice of a section by title. */

const SOAK_TITLE = '## Trigger: the ceiling of one trigger, and an hour of soak';

const s = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '-');
const n = (x) => (Number.isFinite(x) ? x.toLocaleString('en-US') : '-');
const utc = (date) => `${new Date(date).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Least squares slope of `y` over `x`, or NaN with fewer than two points. */
function slope(points) {
	const valid = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
	if (valid.length < 2) return NaN;
	const mx = valid.reduce((a, [x]) => a + x, 0) / valid.length;
	const my = valid.reduce((a, [, y]) => a + y, 0) / valid.length;
	const num = valid.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
	const den = valid.reduce((a, [x]) => a + (x - mx) ** 2, 0);
	return den === 0 ? NaN : num / den;
}

function ceilingLines({ mode, rows, highest }, step, intervalS) {
	const lines = [
		'',
		`**${mode === 'queue' ? 'Queue mode** (Redis, Postgres, the main and two workers at n8n’s default concurrency; the trigger on the main, its executions on the workers)' : 'Regular mode**'}: highest rate kept ${highest > 0 ? `**${highest} messages/s**` : 'none of those tried'}${rows.at(-1)?.kept ? ' (every rate tried was kept: the ceiling is higher)' : ''}.`,
		'',
		`| messages/s, ${step} s each | messages | delivered | p50 | p95 | p95 ≤ ${intervalS + 2} s | n8n main RSS | load |`,
		'|---:|---:|---:|---:|---:|:---:|---:|---:|',
	];
	for (const r of rows)
		lines.push(
			`| ${r.rate} | ${n(r.messages)} | ${n(r.delivered)} | ${s(r.p50)} | ${s(r.p95)} | ${r.kept ? 'yes' : 'no'} | ${r.rss} MB | ${r.load.toFixed(2)} |`,
		);
	return lines;
}

function soakLines(soaked) {
	const { samples, events } = soaked;
	const firstRestart = events[0]?.minute ?? Infinity;
	const after = samples.filter((x) => x.minute > firstRestart);
	const rssSlope = slope(after.map((x) => [x.minute / 60, x.rss]));
	const stateSlope = slope(after.map((x) => [x.minute / 60, x.stateBytes]));
	const f = soaked.faults;
	const pct = (x) => `${Math.round(x * 100)}%`;
	const lines = [
		'',
		`**Soak**: ${soaked.minutes} minutes at ${soaked.rate} messages/s (one trigger workflow, regular mode) from ${utc(soaked.begin)}, the service answering ${pct(f.rate429)} 429, ${pct(f.rate503)} 503, ${pct(f.rate500)} 500 and dropping ${pct(f.rateDrop)} of connections; n8n restarted gracefully at minutes ${events
			.filter((e) => !e.kill)
			.map((e) => e.minute)
			.join(
				', ',
			)} and killed (SIGKILL, its whole process group) at minute ${events.find((e) => e.kill)?.minute ?? '-'}, then started again. Each execution waits ${soaked.holdS} s (a Wait node) before it logs, so that the SIGKILL finds deliveries in flight. After the soak the faults stop and the bench waits for the last deliveries${soaked.drained ? '' : ' (**it gave up after 15 minutes**)'}.`,
		'',
		`- **${n(soaked.messages)} messages: ${n(soaked.lost)} lost, ${n(soaked.repeats)} delivered more than once (${n(soaked.unmarkedRepeats)} of them unmarked)**; ${n(soaked.marked)} deliveries carried the redelivery mark, ${n(soaked.markedBeforeKill)} of them before the SIGKILL; repeats before the SIGKILL: ${n(soaked.repeatsBeforeKill)}.`,
		`- Latency from creation to the start of the execution that received it, over the hour (restarts included): p50 ${s(soaked.p50)}, p95 ${s(soaked.p95)}.`,
		`- After the first restart (minute ${firstRestart}), least-squares slope of the n8n main's RSS: ${Number.isFinite(rssSlope) ? `${rssSlope.toFixed(0)} MB per hour` : '-'}; of the stored trigger state: ${Number.isFinite(stateSlope) ? `${stateSlope.toFixed(0)} bytes per hour` : '-'}.`,
		'',
		'| minute | n8n main RSS | stored trigger state | sent | delivered | load | event |',
		'|---:|---:|---:|---:|---:|---:|---|',
	];
	for (const x of samples) {
		const event = events.find((e) => e.minute === x.minute);
		const what = event ? (event.kill ? 'SIGKILL, started again' : 'graceful restart') : '';
		lines.push(
			`| ${x.minute} | ${Number.isFinite(x.rss) ? `${x.rss} MB` : '-'} | ${Number.isFinite(x.stateBytes) ? `${n(x.stateBytes)} bytes` : '-'} | ${n(x.sent)} | ${n(x.delivered)} | ${x.load.toFixed(2)} | ${what} |`,
		);
	}
	return lines;
}

function soakSection({ ceilings, soaked, machine }) {
	const when = [
		ceilings && `the ceilings ${utc(ceilings.started)} to ${utc(ceilings.ended)}`,
		soaked && `the soak ${utc(soaked.started)} to ${utc(soaked.ended)}`,
	].filter(Boolean);
	const code = [
		ceilings?.commit && `the ceilings on ${ceilings.commit}`,
		soaked?.commit && `the soak on ${soaked.commit}`,
	].filter(Boolean);
	const lines = [
		SOAK_TITLE,
		'',
		`Measured (${when.join(', ')}) by \`npm run bench -- --only soak\` on ${machine}${code.length ? `; the code: ${code.join(', ')}` : ''}. A real \`n8n start\` with the trigger (version 2, every 5 s) on one conversation of the sandbox; each execution logs the ids it received into a second sandbox without faults (one log message per execution, the ceiling's executions without any wait), so that what is lost or repeated is counted by the service. Latency: from a message's creation to the start of the execution that received it, as n8n recorded it. Load: the machine's 1-minute load average when the row was taken (other work shared the machine).`,
	];
	for (const c of ceilings?.results ?? []) lines.push(...ceilingLines(c, ceilings.step, 5));
	if (soaked) lines.push(...soakLines(soaked));
	lines.push(
		'',
		'How the trigger keeps these guarantees: [docs/exactly-once.md](docs/exactly-once.md).',
		'',
	);
	return lines.join('\n');
}

/** `existing` with the section titled `title` replaced by `section`, or `section` added at the end. */
function spliceSection(existing, title, section, before) {
	const lines = existing.split('\n');
	const start = lines.indexOf(title);
	const body = section.split('\n');
	if (start !== -1) {
		let end = start + 1;
		while (end < lines.length && !lines[end].startsWith('## ')) end += 1;
		lines.splice(start, end - start, ...body);
	} else {
		let at = before === undefined ? -1 : lines.findIndex((l) => l.startsWith(before));
		if (at === -1) at = lines.length;
		lines.splice(at, 0, ...body);
	}
	return lines.join('\n');
}

module.exports = { soakSection, spliceSection, slope, SOAK_TITLE };
