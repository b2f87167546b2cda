'use strict';
// `node scripts/prepare.js [<n8n 2.x version>…]`: installs up front what the end-to-end suites would install on
// first use: the pinned real n8n (and each given 2.x version into .compat/<version>/, as test:compat does),
// Redis and Postgres, and Chromium. CI runs it at low priority beside the unit tests, which do not need any of it;
// each suite's own install step then finds it done. A step that fails is left to its suite to report.
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { ensureServicePackages } = require('./lib/services');
const { ensureChromium } = require('./ui/browser');

const ROOT = path.resolve(__dirname, '..');
const log = (message) => process.stderr.write(`prepare: ${message}\n`);

function step(name, run) {
	const started = Date.now();
	try {
		run();
		log(`${name}: ready in ${Math.round((Date.now() - started) / 1000)} s`);
	} catch (error) {
		log(
			`${name}: not ready (${String(error.message).split('\n')[0]}); its suite installs it again`,
		);
	}
}

const installN8n = (env) => () =>
	execFileSync(process.execPath, ['-e', "require('./scripts/lib/n8n-runtime').ensureN8n()"], {
		cwd: ROOT,
		env: { ...process.env, ...env },
		stdio: 'inherit',
	});

step('Redis and Postgres', () => ensureServicePackages({ log }));
step('Chromium', () => ensureChromium(log));
step('n8n', installN8n({}));
for (const version of process.argv.slice(2))
	step(
		`n8n ${version}`,
		installN8n({
			N8N_COMPAT_VERSION: version,
			N8N_COMPAT_DIR: path.join(ROOT, '.compat', version),
		}),
	);
