'use strict';
// `npm run test:e2e`: every end-to-end suite in test/e2e/ (e2e.js, then each *.e2e.js), one after the
// other, each in its own process with its own n8n. Each prints its own `e2e: N passed, M failed` line.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, '..', 'test', 'e2e');
const only = process.argv.slice(2);
const suites = [
	'e2e.js',
	...fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.e2e.js'))
		.sort(),
].filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)));
let failed = 0;
for (const suite of suites) {
	console.log(`e2e suite: ${suite}`);
	const { status, signal } = spawnSync(process.execPath, [path.join(dir, suite)], {
		stdio: 'inherit',
	});
	if (status !== 0) {
		failed += 1;
		console.log(`e2e suite: ${suite} failed (${signal ?? `exit ${status}`})`);
	}
}
process.exitCode = failed > 0 ? 1 : 0;
