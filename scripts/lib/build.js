'use strict';
/** The package's own build, as `npm run build` runs it: TypeScript and icons into dist/. */
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { ROOT } = require('./n8n-runtime');

/** Builds dist/ quietly; on failure the error carries the build's last lines. */
function buildPackage() {
	try {
		execFileSync(process.execPath, [path.join(ROOT, 'node_modules/gulp/bin/gulp.js'), 'build'], {
			cwd: ROOT,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		});
	} catch (error) {
		const output = `${error.stdout ?? ''}${error.stderr ?? ''}`
			.trim()
			.split('\n')
			.slice(-25)
			.join('\n');
		throw new Error(`The build (gulp build) failed:\n${output}`);
	}
}

module.exports = { buildPackage };
