// n8n's verification scanner on the package as published: `npm pack`, unpack, and lint it with
// @n8n/scan-community-package's own analysis (the one n8n runs before it verifies a community
// package), without a download. Also checks that the tarball holds only what n8n loads.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { analyzePackage } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-scan-'));
try {
	const [{ filename, files }] = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', work, '--loglevel=error'], {
			cwd: root,
			encoding: 'utf8',
		}),
	);
	const unexpected = files
		.map((f) => f.path)
		.filter((p) => !/^(package\.json|README\.md|LICENSE|dist\/.+\.(js|svg|node\.json))$/.test(p));
	if (unexpected.length > 0) {
		throw new Error(
			`the tarball ships files n8n does not load: ${unexpected.slice(0, 5).join(', ')}…`,
		);
	}
	const unpacked = path.join(work, 'package');
	fs.mkdirSync(unpacked);
	execFileSync('tar', ['-xzf', path.join(work, filename), '-C', unpacked, '--strip-components=1']);
	// Both legs the scanner runs on a tarball: everything it finds, and compiled JS with package.json.
	for (const patterns of [undefined, ['**/*.js', 'package.json']]) {
		const result = await analyzePackage(unpacked, patterns);
		if (!result.passed) {
			throw new Error(`${result.message}\n${result.details ?? ''}`);
		}
	}
	console.log(`scan: ${filename} (${files.length} files) passes n8n's community package scanner`);
} catch (error) {
	console.error(`scan: FAILED: ${error.message}`);
	process.exitCode = 1;
} finally {
	fs.rmSync(work, { recursive: true, force: true });
}
