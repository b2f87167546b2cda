'use strict';
/**
 * `npm run bench -- --only soak`: the Messaging Trigger (version 2, every 5 s) in a real `n8n start`.
 * 1. The ceiling of one trigger: messages at a steady rate, one rate after the other, in regular mode and
 *    in queue mode; the highest rate whose p95 latency (creation to the start of the execution that
 *    received it) stays within the interval + 2 s with every message delivered.
 * 2. The soak: `--minutes` (60) at `--rate` (20) messages/s with 429s, 5xx and dropped connections at the
 *    service, a graceful restart of n8n every `--restart-every` (10) minutes and one SIGKILL at
 *    `--kill-at` (35) minutes; RSS and the stored state sampled each minute; lost messages, repeats and
 *    marked deliveries counted, and whether any came before the SIGKILL.
 * `--modes regular,queue` (ceiling modes), `--rates 20,40,…`, `--step S` (seconds per rate), `--no-ceiling`,
 * `--no-soak` (each part's results are kept in .bench/soak-*.json, so the two can run apart). With both
 * modes' ceilings and a soak of 60 minutes with its SIGKILL, the section goes into BENCHMARKS.md; else
 * into .bench/soak.md.
 */
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const n8n = require('../lib/n8n');
const { startRig, sleep } = require('./triggerRig');
const { percentile } = require('../lib/percentile');
const { soakSection, spliceSection, SOAK_TITLE } = require('./soakReport');

/** The soak's executions wait this long before they log, so that the SIGKILL finds some in flight. */
const HOLD_S = 3;
const FAULTS = { rate429: 0.05, rate503: 0.03, rate500: 0.01, rateDrop: 0.03, seed: 7 };

function optionsOf(args) {
	const value = (name, fallback) => {
		const at = args.indexOf(`--${name}`);
		return at === -1 ? fallback : args[at + 1];
	};
	return {
		minutes: Number(value('minutes', 60)),
		rate: Number(value('rate', 20)),
		restartEvery: Number(value('restart-every', 10)),
		killAt: Number(value('kill-at', 35)),
		modes: String(value('modes', 'regular,queue')).split(','),
		rates: String(value('rates', '20,40,80,160,240,320,640')).split(',').map(Number),
		step: Number(value('step', 40)),
		ceiling: !args.includes('--no-ceiling'),
		soak: !args.includes('--no-soak'),
	};
}

/** The ramp of one trigger in `mode`: a row per rate, up to the first rate not kept. */
async function ceiling(mode, { rates, step }, log) {
	const rig = await startRig({
		work: path.join(n8n.ROOT, '.bench', `ceiling-${mode}`),
		queue: mode === 'queue',
	});
	const rows = [];
	try {
		const [one] = rig.triggers;
		for (const rate of rates) {
			const ids = (await rig.produce([one], rate, step, `ramp ${rate}`)).get(one);
			await rig.drained(one, ids);
			const l = await rig.latencies(one, ids);
			const kept = l.length === ids.length && percentile(l, 95) <= (rig.intervalS + 2) * 1000;
			rows.push({
				rate,
				messages: ids.length,
				delivered: l.length,
				p50: percentile(l, 50),
				p95: percentile(l, 95),
				kept,
				rss: rig.rss(),
				load: os.loadavg()[0],
			});
			log(`ceiling ${mode}: ${JSON.stringify(rows.at(-1))}`);
			if (!kept) break;
		}
	} finally {
		await rig.stop();
	}
	return { mode, rows, highest: Math.max(0, ...rows.filter((r) => r.kept).map((r) => r.rate)) };
}

/** The soak: samples each minute, restarts on schedule, then counts what came how often. */
async function soak(options, log) {
	const rig = await startRig({ work: path.join(n8n.ROOT, '.bench', 'soak'), holdS: HOLD_S });
	const [one] = rig.triggers;
	const minute = 60_000;
	const ids = [];
	const samples = [];
	const events = [];
	try {
		rig.sandbox.set({ faults: FAULTS });
		const begin = Date.now();
		const end = begin + options.minutes * minute;
		let producing = true;
		const producer = (async () => {
			while (producing && Date.now() < end) {
				const batch = await rig.produce([one], options.rate, 10, 'soak', () => !producing);
				ids.push(...batch.get(one));
			}
		})();
		const restarts = [];
		for (let m = options.restartEvery; m < options.minutes; m += options.restartEvery)
			restarts.push({ at: m, kill: false });
		restarts.push({ at: options.killAt, kill: true });
		restarts.sort((a, b) => a.at - b.at);
		for (let m = 1; m <= options.minutes; m++) {
			await sleep(begin + m * minute - Date.now());
			const delivered = rig.seen(one);
			const sample = {
				minute: m,
				rss: rig.rss(),
				stateBytes: await rig.stateBytes(one).catch(() => NaN),
				sent: ids.length,
				delivered: ids.filter((id) => delivered.has(id)).length,
				load: os.loadavg()[0],
			};
			samples.push(sample);
			log(`soak: ${JSON.stringify(sample)}`);
			for (const r of restarts.filter((x) => x.at === m)) {
				const at = Date.now();
				await rig.restart({ kill: r.kill });
				events.push({ minute: m, kill: r.kill, at, tookMs: Date.now() - at });
				log(`soak: ${JSON.stringify(events.at(-1))}`);
			}
		}
		producing = false;
		await producer;
		rig.sandbox.set({ faults: {} });
		const drained = await rig.drained(one, ids, 15 * minute);
		const seen = rig.seen(one);
		const starts = await rig.session.executionStarts(one.id);
		const killAt = events.find((e) => e.kill)?.at ?? Infinity;
		const deliveries = ids.flatMap((id) => seen.get(id) ?? []);
		const startOf = (d) => starts.get(d.execution) ?? NaN;
		const repeats = ids.flatMap((id) => (seen.get(id) ?? []).slice(1));
		const latencies = await rig.latencies(one, ids);
		return {
			rate: options.rate,
			minutes: options.minutes,
			begin,
			drained,
			samples,
			events,
			faults: FAULTS,
			holdS: HOLD_S,
			messages: ids.length,
			lost: ids.filter((id) => !seen.has(id)).length,
			repeats: repeats.length,
			unmarkedRepeats: repeats.filter((d) => !d.redelivery).length,
			marked: deliveries.filter((d) => d.redelivery).length,
			markedBeforeKill: deliveries.filter((d) => d.redelivery && !(startOf(d) > killAt)).length,
			repeatsBeforeKill: repeats.filter((d) => !(startOf(d) > killAt)).length,
			p50: percentile(latencies, 50),
			p95: percentile(latencies, 95),
		};
	} finally {
		await rig.stop();
	}
}

/** A part's results: measured now, or else as last saved (so the ceiling and the soak can run apart). */
async function measured(file, wanted, measure) {
	if (wanted) {
		const result = await measure();
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(file, JSON.stringify(result, null, 1));
		return result;
	}
	return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
}

/** The code measured: HEAD's short hash, with `+` when the runtime code had uncommitted changes. */
function codeVersion() {
	const git = (...args) => execFileSync('git', args, { cwd: n8n.ROOT }).toString().trim();
	try {
		return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'nodes', 'credentials') ? '+' : ''}`;
	} catch {
		return undefined;
	}
}

async function benchSoak(args, { started, log }) {
	const options = optionsOf(args);
	const saved = (name) => path.join(n8n.ROOT, '.bench', `soak-${name}.json`);
	const ceilings = await measured(saved('ceiling'), options.ceiling, async () => {
		const results = [];
		for (const mode of options.modes) results.push(await ceiling(mode, options, log));
		return { started, ended: new Date(), commit: codeVersion(), step: options.step, results };
	});
	const soaked = await measured(saved('soak'), options.soak, async () => ({
		started: new Date(),
		commit: codeVersion(),
		...(await soak(options, log)),
		ended: new Date(),
	}));
	const version = require(
		path.join(n8n.ROOT, '.n8n-runtime/node_modules/n8n/package.json'),
	).version;
	const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}; Node ${process.version}, n8n ${version}`;
	const section = soakSection({ ceilings, soaked, machine });
	const full =
		ceilings?.results.length === 2 && soaked?.minutes >= 60 && soaked.events.some((e) => e.kill);
	const file = full
		? path.join(n8n.ROOT, 'BENCHMARKS.md')
		: path.join(n8n.ROOT, '.bench', 'soak.md');
	const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
	fs.writeFileSync(file, full ? spliceSection(existing, SOAK_TITLE, section) : section);
	log(`soak: written to ${path.relative(n8n.ROOT, file)}`);
	return !soaked || (soaked.lost === 0 && soaked.unmarkedRepeats === 0);
}

module.exports = { benchSoak };
