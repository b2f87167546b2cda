// The GitHub Actions workflows, validated against GitHub's workflow schema (@action-validator/core, the
// schema n8n-free CI linters use), plus what a release depends on: CI runs .ci/run, and the publish
// workflow runs on a version tag with an OIDC token and publishes with provenance.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { validateWorkflow } from '@action-validator/core';

const root = path.resolve(
	process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
);
const dir = path.join(root, '.github', 'workflows');
const problems = [];
const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
for (const file of files) {
	const { errors } = validateWorkflow(fs.readFileSync(path.join(dir, file), 'utf8'));
	for (const error of errors) problems.push(`${file}: ${JSON.stringify(error)}`);
}
const read = (file) => (files.includes(file) ? fs.readFileSync(path.join(dir, file), 'utf8') : '');
const ci = read('ci.yml');
const publish = read('publish.yml');
const expect = (ok, what) => ok || problems.push(what);
expect(/bash \.ci\/run/.test(ci), 'ci.yml: must run bash .ci/run');
expect(
	/tags:\s*\[?\s*'v\*\.\*\.\*'/.test(publish),
	'publish.yml: must run on a version tag (v*.*.*)',
);
expect(/id-token:\s*write/.test(publish), 'publish.yml: needs id-token: write (OIDC, provenance)');
expect(
	/npm publish[^\n]*--provenance/.test(publish),
	'publish.yml: must publish with --provenance',
);
if (problems.length) {
	console.error(`workflows: ${problems.length} problem(s)\n${problems.join('\n')}`);
	process.exit(1);
}
console.log(`workflows: ${files.join(', ')} valid`);
