#!/usr/bin/env node
'use strict';
/**
 * `npm run bench`: the Messaging node (A) against n8n's HTTP Request node (B) and the floor of any node (F,
 * scripts/bench/floor-node) in the same real n8n, and a plain undici script (C), on the sandbox service with
 * 20-30 ms of latency per request, then again under a rate limit. Writes BENCHMARKS.md. Options:
 * --repeats N (default 3), --quick (fewer items, for a smoke run), --only
 * get,mute,send,getMany,ratelimit-shapes,trigger,micro (some workloads; ratelimit-shapes: the Messaging node
 * against every limiter shape × Retry-After form, scripts/bench/shapes.js), --splice (with --only
 * ratelimit-shapes: write its Targets rows and section into BENCHMARKS.md, keeping every other figure),
 * --shapes fixed-window,concurrency (some limiter shapes of that matrix), --variants A,A32,F8,F32,B,Bretry,C1,C8,C32,Call (some variants), --idle-only (no
 * rate-limited runs), --cpu-prof DIR (V8 CPU profiles of each n8n run into DIR). --only files: the attachments'
 * memory (scripts/bench/files.js), with --compare REF an older build measured right before each workload, with
 * --splice its section written into BENCHMARKS.md. --only recovery: 1,000 events lost in a crash delivered again
 * (scripts/bench/recovery.js), with --compare and --splice alike. --only soak: the ceiling of one trigger and an
 * hour of soak in a real n8n (scripts/bench/soak.js, its options there; not part of CI).
 * --only share: 1, 20 and 100 triggers on one token, then 100 each on its own conversation, in a real n8n
 * (scripts/bench/triggerShare.js), with --compare REF and --splice likewise.
 * A partial run (--quick, --only, --variants, --idle-only) writes .bench/BENCHMARKS.partial.md instead.
 *
 * scripts/bench/: cli.js (options), service.js (the sandbox's data and settings), workloads.js (the
 * variants' nodes and workflows, the plans), measure.js (running and timing), shapes.js (the rate-limit
 * shapes matrix and its minima), in-process.js (trigger poll,
 * micro-benchmark), report.js (the Markdown).
 */
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('./lib/n8n');
const { buildPackage } = require('./lib/build');
const { createSandbox } = require('../sandbox/server');
const { parseArgs } = require('./bench/cli');
const { LATENCY_MS, JITTER_MS, RATE, TOKEN, seed, reset, sendOrder } = require('./bench/service');
const {
	credentials,
	variants,
	benchWorkflows,
	IDLE_PLAN,
	LIMITED_PLAN,
} = require('./bench/workloads');
const { runN8n, runUndici, measurePlan } = require('./bench/measure');
const { triggerBench, microBench } = require('./bench/in-process');
const { measureShapes } = require('./bench/shapes');
const { report, spliceShapes } = require('./bench/report');
const { benchFiles } = require('./bench/files');
const { spliceFiles } = require('./bench/filesReport');
const { benchSoak } = require('./bench/soak');
const { benchRecovery, writeRecovery } = require('./bench/recovery');
const { spliceSection } = require('./bench/soakReport');
const { benchShare, TITLE: SHARE_TITLE } = require('./bench/triggerShare');

const WORK = path.join(n8n.ROOT, '.bench');
const USER = path.join(WORK, 'user');

async function main() {
	const options = parseArgs(process.argv.slice(2));
	const { sizes, repeats } = options;
	const started = new Date();
	buildPackage();
	const files = options.wanted('files')
		? benchFiles({ compare: options.compare, started, log: (t) => process.stderr.write(t) })
		: null;
	if (options.only?.includes('soak')) {
		const kept = await benchSoak(process.argv.slice(2), { started, log: (t) => console.log(t) });
		if (kept === false) process.exitCode = 1;
		return;
	}
	const recovery = options.wanted('recovery') ? await benchRecovery(options) : null;
	if (recovery && options.only) writeRecovery(recovery, options);
	if (options.only?.every((workload) => workload === 'share'))
		return await writeShare(options, started);
	if (options.only?.every((workload) => workload === 'files' || workload === 'recovery'))
		return files && writeFiles(files, options);
	n8n.ensureN8n();
	fs.rmSync(WORK, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });
	const { tarball } = n8n.packPackage(WORK);
	n8n.installPackage(USER, tarball);
	n8n.installFolderPackage(USER, path.join(__dirname, 'bench', 'floor-node'));

	let service;
	const sandbox = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: (store) => (service = seed(store, sizes)),
		latencyMs: LATENCY_MS,
		latencyJitterMs: JITTER_MS,
		recordRequests: false,
	}).start();
	const { store } = sandbox;
	try {
		await n8n.importCredentials(USER, WORK, credentials(sandbox.url));
		const byWorkload = variants(sandbox.url, service, sizes);
		const { workflows, ids } = benchWorkflows(byWorkload);
		await n8n.importWorkflows(USER, path.join(WORK, 'workflows'), workflows);

		const runOne = async (workload, variant) => {
			reset(store, service);
			let result;
			if (variant.startsWith('C')) {
				const concurrency = variant === 'C all' ? 'unbounded' : Number(variant.slice(2));
				result = await runUndici(
					sandbox,
					service,
					sizes,
					workload,
					byWorkload[workload].items,
					concurrency,
				);
			} else {
				result = await runN8n(
					sandbox,
					USER,
					ids[`${workload}:${variant.replace(/ .*/, '')}`],
					options.cpuProfileDir,
				);
			}
			if (workload === 'send') Object.assign(result, sendOrder(store, service));
			return result;
		};

		process.stderr.write(`Idle service, ${repeats} run(s) each:\n`);
		const normal = await measurePlan({
			plan: IDLE_PLAN,
			times: repeats,
			limitedRun: false,
			runOne,
			options,
		});
		sandbox.set({ rateLimit: RATE });
		process.stderr.write(`Rate-limited service, once each:\n`);
		const limited = options.idleOnly
			? []
			: await measurePlan({
					plan: LIMITED_PLAN,
					times: 1,
					limitedRun: true,
					idleRows: normal,
					runOne,
					options,
				});
		sandbox.set({ rateLimit: null });
		let shapes = [];
		if (options.wanted('ratelimit-shapes') && !options.idleOnly) {
			process.stderr.write(`Rate-limit shapes, ${repeats} run(s) each:\n`);
			shapes = await measureShapes({
				sandbox,
				sizes,
				runOne,
				wantedShape: options.wantedShape,
				repeats,
			});
		}
		const trigger = options.wanted('trigger') ? await triggerBench(sizes) : null;
		const micro = options.wanted('micro') ? microBench() : null;
		const versions = {
			n8n: require(path.join(n8n.ROOT, '.n8n-runtime/node_modules/n8n/package.json')).version,
			package: require('../package.json').version,
		};
		const markdown = report({
			normal,
			limited,
			shapes,
			trigger,
			micro,
			started,
			versions,
			sizes,
			repeats,
			files: [files?.section, recovery?.section].filter(Boolean).join('\n') || undefined,
		});
		fs.writeFileSync(
			path.join(n8n.ROOT, options.partial ? '.bench/BENCHMARKS.partial.md' : 'BENCHMARKS.md'),
			markdown,
		);
		fs.writeFileSync(path.join(WORK, 'results.json'), JSON.stringify({ normal, limited, shapes }));
		// A full run wrote its shapes above; a partial one splices them into the existing BENCHMARKS.md.
		if (options.splice && options.partial && shapes.length && !options.quick) {
			const file = path.join(n8n.ROOT, 'BENCHMARKS.md');
			fs.writeFileSync(
				file,
				spliceShapes(fs.readFileSync(file, 'utf8'), shapes, { started, versions, sizes }),
			);
			process.stderr.write('BENCHMARKS.md: rate-limit shapes written in.\n');
		}
		if (options.splice && options.partial && files) writeFiles(files, options);
		console.log(markdown);
	} finally {
		await sandbox.stop();
	}
}

/** The files section alone: .bench/BENCHMARKS.partial.md, and with --splice into BENCHMARKS.md. */
function writeFiles(files, options) {
	fs.mkdirSync(WORK, { recursive: true });
	fs.writeFileSync(path.join(WORK, 'BENCHMARKS.partial.md'), files.section);
	if (options.splice) {
		const file = path.join(n8n.ROOT, 'BENCHMARKS.md');
		fs.writeFileSync(file, spliceFiles(fs.readFileSync(file, 'utf8'), files.section));
		process.stderr.write('BENCHMARKS.md: the files section written in.\n');
	}
	console.log(files.section);
}

/** Many triggers on one token (scripts/bench/triggerShare.js): .bench/BENCHMARKS.partial.md, with --splice BENCHMARKS.md. */
async function writeShare(options, started) {
	const log = (t) => process.stderr.write(t);
	const { section } = await benchShare({ compare: options.compare, started, log });
	fs.mkdirSync(WORK, { recursive: true });
	fs.writeFileSync(path.join(WORK, 'BENCHMARKS.partial.md'), section);
	if (options.splice) {
		const file = path.join(n8n.ROOT, 'BENCHMARKS.md');
		fs.writeFileSync(
			file,
			spliceSection(fs.readFileSync(file, 'utf8'), SHARE_TITLE, section, '## Trigger poll'),
		);
		log('BENCHMARKS.md: the shared listings section written in.\n');
	}
	console.log(section);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
