'use strict';
/**
 * The Messaging Trigger's layers, read from its sources (cycles and file sizes are scripts/check/layout.mjs's):
 * it imports only from itself, nodes/shared, n8n-workflow and Node's modules; only the node file reaches
 * into v1/ and v2/; and the pure core (the plan and what it is made of) imports nothing that does I/O
 * (type imports aside). Each rule also runs on a small tree made here that breaks it.
 */
const fs = require('node:fs');
const { builtinModules } = require('node:module');
const os = require('node:os');
const path = require('node:path');

const NODES = path.resolve(__dirname, '..', '..', 'nodes');
const TRIGGER = 'MessagingTrigger';

/** The pure core: no network, no static data, no clock of its own (time is passed in). */
const PURE = [
	'decisions.ts',
	'events/bursts.ts',
	'events/settings.ts',
	'events/watch.ts',
	'plan.ts',
	'planMessages.ts',
	'serviceClock.ts',
	'shortHash.ts',
	'triggerState.ts',
	'v2/deliveryLedger.ts',
	'v2/ledgerV1.ts',
	'v2/schedule.ts',
	'watermark.ts',
].map((file) => `${TRIGGER}/${file}`);
/** What the pure core may use of nodes/shared. */
const PURE_SHARED = [
	'shared/ids.ts',
	'shared/lines.ts',
	'shared/listOrder.ts',
	'shared/timestamps.ts',
];

function sourcesUnder(root) {
	const files = [];
	const walk = (dir) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(full);
			else if (entry.name.endsWith('.ts')) files.push(path.relative(root, full));
		}
	};
	walk(root);
	return files.sort();
}

/** A file's imports: `{ target, typeOnly }`, relative ones resolved to a file under `root`. */
function importsOf(root, file) {
	const text = fs.readFileSync(path.join(root, file), 'utf8');
	const found = [];
	const pattern = /^(?:(?:import|export)\s+(type\s+)?[^'";]*?from\s+|import\s+)'([^']+)'/gms;
	for (const [, typeOnly, spec] of text.matchAll(pattern)) {
		if (!spec.startsWith('.')) {
			found.push({ target: spec, typeOnly: !!typeOnly, external: true });
			continue;
		}
		const base = path.join(path.dirname(file), spec);
		const target = [`${base}.ts`, path.join(base, 'index.ts')].find((f) =>
			fs.existsSync(path.join(root, f)),
		);
		found.push({ target: target ?? `${base} (missing)`, typeOnly: !!typeOnly, external: false });
	}
	return found;
}

/** Every rule broken under `root` (a `nodes/` folder), one sentence each. */
function layoutProblems(root) {
	const problems = [];
	const files = sourcesUnder(root).filter((f) => f.startsWith(`${TRIGGER}/`));
	for (const file of files) {
		for (const { target, typeOnly, external } of importsOf(root, file)) {
			if (external) {
				const builtin = builtinModules.includes(target.replace(/^node:/, ''));
				if (target !== 'n8n-workflow' && !builtin) problems.push(`${file} imports ${target}`);
				continue;
			}
			if (!target.startsWith(`${TRIGGER}/`) && !target.startsWith('shared/'))
				problems.push(`${file} imports ${target}, outside the trigger and nodes/shared`);
			const version = (f) => /^MessagingTrigger\/(v[12])\//.exec(f)?.[1];
			const into = version(target);
			if (into && into !== version(file) && file !== `${TRIGGER}/${TRIGGER}.node.ts`)
				problems.push(`${file} imports ${target}: only the node file uses a version's folder`);
			if (
				PURE.includes(file) &&
				!typeOnly &&
				!PURE.includes(target) &&
				!PURE_SHARED.includes(target)
			)
				problems.push(`${file} (pure) imports ${target}`);
		}
	}
	return problems;
}

test('the trigger: imports from below only, versions reached from the node file only, a pure core', () => {
	expect(layoutProblems(NODES)).toEqual([]);
});

test('each rule names what breaks it', () => {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-layout-'));
	const write = (file, text) => {
		fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
		fs.writeFileSync(path.join(root, file), text);
	};
	write('shared/ids.ts', 'export const a = 1;\n');
	write('shared/transport/index.ts', 'export const t = 1;\n');
	write('Messaging/types.ts', 'export type T = 1;\n');
	write(`${TRIGGER}/listing.ts`, "import type { Plan } from './plan';\nexport const l = 1;\n");
	write(
		`${TRIGGER}/plan.ts`,
		"import { l } from './listing';\nimport { t } from '../shared/transport';\nimport type { T } from '../Messaging/types';\nexport type Plan = 1;\n",
	);
	write(`${TRIGGER}/events/check.ts`, "import { x } from '../v2/deliveries';\nimport 'lodash';\n");
	write(`${TRIGGER}/events/readAgain.ts`, "import { y } from 'lodash';\n");
	write(`${TRIGGER}/v2/deliveries.ts`, 'export const x = 1;\n');
	try {
		expect(layoutProblems(root)).toEqual([
			`${TRIGGER}/events/check.ts imports ${TRIGGER}/v2/deliveries.ts: only the node file uses a version's folder`,
			`${TRIGGER}/events/check.ts imports lodash`,
			`${TRIGGER}/events/readAgain.ts imports lodash`,
			`${TRIGGER}/plan.ts (pure) imports ${TRIGGER}/listing.ts`,
			`${TRIGGER}/plan.ts (pure) imports shared/transport/index.ts`,
			`${TRIGGER}/plan.ts imports Messaging/types.ts, outside the trigger and nodes/shared`,
		]);
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
});
