/**
 * Build: compile TypeScript, then copy each node's and credential's icons (SVG) and codex files
 * (<Node>.node.json) next to the compiled JavaScript in dist/, where n8n looks for them.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { src, dest, series } = require('gulp');

function compile(done) {
	const tsc = path.join(__dirname, 'node_modules', 'typescript', 'bin', 'tsc');
	spawn(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' }).on('exit', (code) =>
		done(code === 0 ? undefined : new Error(`tsc exited with ${code}`)),
	);
}

function copyAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.node.json', 'credentials/**/*.svg'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports.build = series(compile, copyAssets);
exports.default = exports.build;
