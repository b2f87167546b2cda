'use strict';
/**
 * `--compare REF` of the files bench: the package's runtime code at REF compiled into a temporary folder,
 * so the same bench measures it right before the current build. Its node_modules is this checkout's (the
 * same n8n-core and n8n-workflow modules, as the harness needs).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');

/** Builds REF's nodes/ and credentials/; returns its dist, its commit, and a cleanup. */
function buildRef(ref) {
	const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
	const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'files-bench-ref-'));
	const archive = execFileSync(
		'git',
		['archive', commit, 'nodes', 'credentials', 'tsconfig.json', 'package.json'],
		{ cwd: ROOT, maxBuffer: 256 * 1024 * 1024 },
	);
	execFileSync('tar', ['-x', '-C', dir], { input: archive });
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
	try {
		execFileSync(
			process.execPath,
			[path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
			{ cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
		);
	} catch (error) {
		fs.rmSync(dir, { recursive: true, force: true });
		throw new Error(`Building ${ref} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
	}
	return {
		ref,
		commit,
		dist: path.join(dir, 'dist'),
		cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
	};
}

module.exports = { buildRef };
