'use strict';
// The release checks `npm test` runs (scripts/check/links.mjs, workflows.mjs) on small repositories made
// here: each passes on a sound one and fails, naming the problem, on each kind of breakage.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const REPO = 'https://github.com/acme/n8n-nodes-x';

function repoWith(files) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'release-check-'));
	const base = {
		'package.json': JSON.stringify({
			repository: { type: 'git', url: `git+${REPO}.git` },
			homepage: `${REPO}#readme`,
			bugs: { url: `${REPO}/issues` },
		}),
		'README.md':
			'# X\n\n## Installation\n\nSee [the docs](docs/a.md#first-part) and [below](#installation).\n',
		'CHANGELOG.md': '# Changelog\n\n## [Unreleased]\n',
		'docs/a.md': '# A\n\n## First part\n',
		'nodes/Messaging/Messaging.node.json': JSON.stringify({
			resources: { primaryDocumentation: [{ url: `${REPO}/blob/main/docs/a.md#first-part` }] },
		}),
		'nodes/MessagingTrigger/MessagingTrigger.node.json': JSON.stringify({
			resources: { credentialDocumentation: [{ url: `${REPO}#installation` }] },
		}),
		'credentials/X.credentials.ts': `documentationUrl = '${REPO}#installation';\n`,
		'.github/workflows/ci.yml':
			'name: CI\non: push\njobs:\n  ci:\n    runs-on: ubuntu-latest\n    steps:\n      - run: bash .ci/run\n',
		'.github/workflows/publish.yml':
			"name: Publish\non:\n  push:\n    tags: ['v*.*.*']\njobs:\n  p:\n    runs-on: ubuntu-latest\n    permissions:\n      id-token: write\n    steps:\n      - run: npm publish --provenance\n",
	};
	for (const [name, text] of Object.entries({ ...base, ...files })) {
		if (text === null) continue;
		fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
		fs.writeFileSync(path.join(dir, name), text);
	}
	return dir;
}

const run = (check, dir) =>
	spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'check', check), dir], {
		encoding: 'utf8',
	});

describe('links check', () => {
	test('passes when every link resolves', () => {
		const result = run('links.mjs', repoWith({}));
		expect(result.stderr).toBe('');
		expect(result.status).toBe(0);
	});

	test.each([
		[
			'a missing file',
			{ 'README.md': '# X\n\n[gone](docs/gone.md)\n' },
			'docs/gone.md (no such file)',
		],
		['a missing heading', { 'README.md': '# X\n\n[a](docs/a.md#second)\n' }, 'no heading #second'],
		[
			'a missing in-page anchor',
			{ 'README.md': '# X\n\n[t](#troubleshooting)\n' },
			'#troubleshooting',
		],
		['a missing CHANGELOG', { 'CHANGELOG.md': null }, 'CHANGELOG.md is missing'],
		[
			'a broken anchor in a docs page',
			{ 'docs/b.md': '# B\n\nSee [a](a.md#second-part).\n' },
			'docs/b.md: a.md#second-part (no heading #second-part in docs/a.md)',
		],
		[
			'a broken in-page anchor in a nested docs page',
			{ 'docs/guides/c.md': '# C\n\n[up](#top)\n' },
			'docs/guides/c.md: #top (no heading #top',
		],
		[
			'a docs page the index does not list',
			{ 'docs/README.md': '# Docs\n\n[A](a.md#first-part)\n', 'docs/b.md': '# B\n' },
			'docs/README.md does not list docs/b.md',
		],
		[
			'a docs page linking a source file that moved',
			{
				'nodes/shared/transport/pacing/pacer.ts': '',
				'docs/b.md': '# B\n\n[the pacer](../nodes/shared/transport/pacer.ts)\n',
			},
			'docs/b.md: ../nodes/shared/transport/pacer.ts (no such file)',
		],
		[
			'a docs page naming in code a source file that moved',
			{
				'nodes/shared/transport/pacing/pacer.ts': '',
				'docs/b.md': '# B\n\nThe pace (`nodes/shared/transport/pacer.ts`).\n',
			},
			'docs/b.md: `nodes/shared/transport/pacer.ts` (no such file: moved or renamed?)',
		],
		[
			'a layout block naming a file by a tail that no longer ends any file',
			{
				'nodes/shared/transport/pacing/pacer.ts': '',
				'docs/b.md': '# B\n\n```\nnodes/shared/\n  transport/pacer.ts   the pace\n```\n',
			},
			'docs/b.md: `transport/pacer.ts` (no such file: moved or renamed?)',
		],
		[
			'a codex URL of another repository',
			{
				'nodes/Messaging/Messaging.node.json': JSON.stringify({
					resources: { primaryDocumentation: [{ url: 'https://github.com/other/repo#x' }] },
				}),
			},
			'is not an address of',
		],
		[
			'a codex URL to a heading that is gone',
			{
				'nodes/Messaging/Messaging.node.json': JSON.stringify({
					resources: { primaryDocumentation: [{ url: `${REPO}#operations` }] },
				}),
			},
			'no heading #operations',
		],
		[
			'bugs of another repository',
			{
				'package.json': JSON.stringify({
					repository: { url: `git+${REPO}.git` },
					homepage: `${REPO}#readme`,
					bugs: { url: 'https://github.com/other/repo/issues' },
				}),
			},
			'bugs.url',
		],
	])('fails on %s', (_what, files, message) => {
		const result = run('links.mjs', repoWith(files));
		expect(result.status).toBe(1);
		expect(result.stderr).toContain(message);
	});

	test('files named in code are checked only when they are ours, and not in the CHANGELOG', () => {
		const result = run(
			'links.mjs',
			repoWith({
				'nodes/shared/transport/pacing/pacer.ts': '',
				'docs/b.md':
					"# B\n\n`pacing/pacer.ts`, `nodes/shared/transport/pacing/pacer.ts:12`, n8n's `packages/cli/src/server.ts`\n",
				'CHANGELOG.md':
					'# Changelog\n\n## [Unreleased]\n\n- moved `nodes/shared/transport/pacer.ts`\n',
			}),
		);
		expect(result.stderr).toBe('');
		expect(result.status).toBe(0);
	});

	test('links inside code are not links', () => {
		const result = run(
			'links.mjs',
			repoWith({
				'README.md': '# X\n\n## Installation\n\n`[a](nowhere.md)`\n\n```\n[b](nowhere.md)\n```\n',
			}),
		);
		expect(result.status).toBe(0);
	});
});

describe('workflows check', () => {
	test('passes on valid workflows', () => {
		const result = run('workflows.mjs', repoWith({}));
		expect(result.stderr).toBe('');
		expect(result.status).toBe(0);
	});

	test.each([
		[
			'a key GitHub does not know',
			{
				'.github/workflows/ci.yml':
					'name: CI\non: push\njobs:\n  ci:\n    runs-on: ubuntu-latest\n    step:\n      - run: bash .ci/run\n',
			},
			'ci.yml',
		],
		[
			'a publish without an OIDC token',
			{
				'.github/workflows/publish.yml':
					"name: P\non:\n  push:\n    tags: ['v*.*.*']\njobs:\n  p:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm publish --provenance\n",
			},
			'id-token: write',
		],
		[
			'a publish without provenance',
			{
				'.github/workflows/publish.yml':
					"name: P\non:\n  push:\n    tags: ['v*.*.*']\njobs:\n  p:\n    runs-on: ubuntu-latest\n    permissions:\n      id-token: write\n    steps:\n      - run: npm publish\n",
			},
			'--provenance',
		],
	])('fails on %s', (_what, files, message) => {
		const result = run('workflows.mjs', repoWith(files));
		expect(result.status).toBe(1);
		expect(result.stderr).toContain(message);
	});
});

describe('this repository', () => {
	test('repository, homepage, bugs and the codex URLs name one repository', () => {
		const pkg = require('../../package.json');
		const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
		expect(pkg.homepage).toBe(`${repo}#readme`);
		expect(pkg.bugs.url).toBe(`${repo}/issues`);
		expect(pkg.author.url).toBe(repo.slice(0, repo.lastIndexOf('/')));
	});
});
