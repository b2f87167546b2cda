'use strict';
/**
 * The options of `npm run bench` (see scripts/bench.js) and the workload sizes they imply. A narrowed run
 * (--quick, --only, --variants, --idle-only) is `partial`: it writes .bench/BENCHMARKS.partial.md.
 */
const path = require('node:path');

const FULL_SIZES = { get: 2000, mute: 2000, send: 1000, many: 10_000, poll: 1000 };
const QUICK_SIZES = { get: 200, mute: 200, send: 100, many: 1000, poll: 100 };

function parseArgs(args) {
	const valueOf = (name) => args[args.indexOf(name) + 1];
	const listOf = (name) => (args.includes(name) ? valueOf(name).split(',') : null);
	const quick = args.includes('--quick');
	const only = listOf('--only');
	const variants = listOf('--variants');
	const idleOnly = args.includes('--idle-only');
	const splice = args.includes('--splice');
	const shapes = listOf('--shapes');
	const compare = args.includes('--compare') ? valueOf('--compare') : null;
	return {
		quick,
		repeats: Number(valueOf('--repeats')) || (quick ? 1 : 3),
		only,
		variants,
		idleOnly,
		splice,
		/** The files and recovery workloads' older build to measure before the current one (a git ref). */
		compare,
		/** The limiter shapes of the shapes matrix in this run (all by default). */
		wantedShape: (shape) => !shapes || shapes.includes(shape),
		cpuProfileDir: args.includes('--cpu-prof') ? path.resolve(valueOf('--cpu-prof')) : null,
		partial: quick || !!only || !!variants || idleOnly || !!shapes,
		sizes: quick ? QUICK_SIZES : FULL_SIZES,
		/** Whether a workload (get, mute, send, getMany, ratelimit-shapes, trigger, micro, files, recovery) is in this run. */
		wanted: (workload) => !only || only.includes(workload),
		/** Whether a variant (A, A32, F8, …, 'C 8' given as C8) is in this run. */
		wantedVariant: (variant) => !variants || variants.includes(variant.replace(' ', '')),
	};
}

module.exports = { parseArgs };
