'use strict';
// scripts/check/layout.mjs on small trees made here: each rule fails on its breakage, and a known violation
// that is gone fails too (the known list only shrinks).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CHECK = path.resolve(__dirname, '..', '..', 'scripts', 'check', 'layout.mjs');

function run(files, known) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-check-'));
	const all = { ...files, 'scripts/check/layout-known.json': JSON.stringify(known ?? {}) };
	for (const [name, text] of Object.entries(all)) {
		fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
		fs.writeFileSync(path.join(dir, name), text);
	}
	const result = spawnSync(process.execPath, [CHECK, dir], { encoding: 'utf8' });
	return { status: result.status, output: result.stdout + result.stderr };
}

const SOUND = {
	'nodes/A/A.node.ts': "import { x } from '../shared/x';\nexport const a = x;\n",
	'nodes/shared/x.ts': "import type { T } from './transport/t';\nexport const x: T = 1;\n",
	'nodes/shared/transport/t.ts': "import { y } from '../timestamps';\nexport type T = typeof y;\n",
	'nodes/shared/timestamps.ts': 'export const y = 1;\n',
};

test('the transport may import the pure helpers, a folder of them included', () => {
	const headers = {
		'nodes/shared/transport/t.ts': "import { h } from '../headers/h';\nexport type T = typeof h;\n",
		'nodes/shared/headers/h.ts': "import { y } from '../timestamps';\nexport const h = y;\n",
	};
	expect(run({ ...SOUND, ...headers }).status).toBe(0);
});

test('a sound tree passes', () => {
	const { status, output } = run(SOUND);
	expect(output).toContain('no new violation (0 known');
	expect(status).toBe(0);
});

test.each([
	[
		'a cycle, type-only imports included',
		{
			'nodes/A/b.ts': "import type { C } from './c';\nexport type B = C;\n",
			'nodes/A/c.ts': "import type { B } from './b';\nexport type C = B;\n",
		},
		'cycle: nodes/A/b.ts <-> nodes/A/c.ts',
	],
	[
		'shared importing a node',
		{ 'nodes/shared/z.ts': "import { a } from '../A/A.node';\nexport const z = a;\n" },
		'upward import: nodes/shared/z.ts -> nodes/A/A.node.ts',
	],
	[
		'the transport importing a feature',
		{ 'nodes/shared/transport/u.ts': "import { x } from '../x';\nexport const u = x;\n" },
		'transport imports a feature',
	],
	[
		'a pure helper importing the transport',
		{
			'nodes/shared/headers/h.ts': "import type { T } from '../transport/t';\nexport type H = T;\n",
		},
		'a pure helper imports more than pure helpers: nodes/shared/headers/h.ts',
	],
	[
		'a long file in nodes/',
		{ 'nodes/A/long.ts': 'export const a = 1;\n'.repeat(251) },
		'long file: nodes/A/long.ts',
	],
	['a long test', { 'test/x.test.js': '// x\n'.repeat(401) }, 'long file: test/x.test.js'],
])('%s fails', (_name, files, expected) => {
	const { status, output } = run({ ...SOUND, ...files });
	expect(output).toContain(expected);
	expect(status).toBe(1);
});

test('docs/development.md’s layout block must name files that exist', () => {
	const doc = (names) => ({
		'docs/development.md': `# Dev\n\n## Layout\n\n\`\`\`\n${names}\n\`\`\`\n`,
	});
	const ok = 'nodes/A/A.node.ts   the node\nnodes/shared/   shared:\n  {x,timestamps}.ts   pure';
	expect(run({ ...SOUND, ...doc(ok) }).status).toBe(0);
	const { status, output } = run({ ...SOUND, ...doc(`${ok}\n  transport/gone.ts   moved`) });
	expect(output).toContain('layout names nodes/shared/transport/gone.ts, which does not exist');
	expect(status).toBe(1);
});

test('a known violation passes; a known one that is gone fails', () => {
	const long = { 'nodes/A/long.ts': 'export const a = 1;\n'.repeat(251) };
	const known = { 'long file: nodes/A/long.ts (over 250 lines)': '#41' };
	expect(run({ ...SOUND, ...long }, known).status).toBe(0);
	const { status, output } = run(SOUND, known);
	expect(output).toContain('is fixed: remove it');
	expect(status).toBe(1);
});
