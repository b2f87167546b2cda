// The layout's rules, checked on every `npm test`: no import cycle in nodes/ (type-only imports included),
// nodes/shared/ (the transport included: it is shared's bottom layer, beside the pure helpers) never imports from
// the nodes, the transport imports no other shared feature than the pure helpers, which import only each other, no file in nodes/ over
// 250 lines and none in scripts/, sandbox/ or test/ over 400, and the transport within its line budget.
// Imports are read with TypeScript's own pre-processor. A violation known today is listed in layout-known.json
// with the issue that removes it; the check fails on any new violation and on a listed one that is gone, so
// the list only shrinks.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const root = path.resolve(
	process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
);
export const LIMITS = { nodes: 250, other: 400, transport: 1700 };
const TRANSPORT = 'nodes/shared/transport/';
/** Pure helpers below every feature, which the transport may use (a folder: every file in it). */
const PURE = [
	'nodes/shared/timestamps.ts',
	'nodes/shared/ids.ts',
	'nodes/shared/lines.ts',
	'nodes/shared/headers/',
];
const isPure = (file) =>
	PURE.some((pure) => (pure.endsWith('/') ? file.startsWith(pure) : file === pure));

function filesUnder(dir, test) {
	const out = [];
	const walk = (d) => {
		if (!fs.existsSync(path.join(root, d))) return;
		for (const entry of fs.readdirSync(path.join(root, d), { withFileTypes: true })) {
			const rel = `${d}/${entry.name}`;
			if (entry.isDirectory()) {
				if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(rel);
			} else if (test(rel)) out.push(rel);
		}
	};
	walk(dir);
	return out.sort();
}

const lines = (file) => fs.readFileSync(path.join(root, file), 'utf8').split('\n').length - 1;

/** The relative imports of each TypeScript file in nodes/ and credentials/, resolved to files. */
function importGraph() {
	const graph = new Map();
	const sources = [
		...filesUnder('nodes', (f) => f.endsWith('.ts')),
		...filesUnder('credentials', (f) => f.endsWith('.ts')),
	];
	for (const file of sources) {
		const info = ts.preProcessFile(fs.readFileSync(path.join(root, file), 'utf8'), true, true);
		const targets = [];
		for (const { fileName } of info.importedFiles) {
			if (!fileName.startsWith('.')) continue;
			const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName));
			const target = [`${base}.ts`, `${base}/index.ts`].find((f) =>
				fs.existsSync(path.join(root, f)),
			);
			if (target) targets.push(target);
		}
		graph.set(file, targets);
	}
	return graph;
}

/** Strongly connected components with more than one file (Tarjan): each is an import cycle. */
function cycles(graph) {
	let index = 0;
	const stack = [];
	const info = new Map();
	const found = [];
	const visit = (v) => {
		info.set(v, { index, low: index, onStack: true });
		index++;
		stack.push(v);
		for (const w of graph.get(v) ?? []) {
			if (!info.has(w)) {
				visit(w);
				info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
			} else if (info.get(w).onStack)
				info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
		}
		if (info.get(v).low === info.get(v).index) {
			const component = [];
			let w;
			do {
				w = stack.pop();
				info.get(w).onStack = false;
				component.push(w);
			} while (w !== v);
			if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
		}
	};
	for (const v of graph.keys()) if (!info.has(v)) visit(v);
	return found;
}

/** The paths docs/development.md's Layout block names (`{a,b}` expanded, indented ones under nodes/shared/). */
function layoutPaths() {
	const file = path.join(root, 'docs', 'development.md');
	if (!fs.existsSync(file)) return [];
	const block = /## Layout\s+```\n([\s\S]*?)```/.exec(fs.readFileSync(file, 'utf8'))?.[1] ?? '';
	const paths = [];
	for (const line of block.split('\n')) {
		const names = /^(\s*)(\S.*?)(?:\s{2,}|$)/.exec(line);
		if (!names || !/[/.]/.test(names[2])) continue;
		for (const name of names[2].split(/,\s*(?![^{]*\})/)) {
			if (name.includes('<')) continue; // a pattern, not a path
			const brace = /^(.*)\{([^}]*)\}(.*)$/.exec(name);
			const expanded = brace ? brace[2].split(',').map((b) => brace[1] + b + brace[3]) : [name];
			for (const one of expanded) paths.push(names[1] ? `nodes/shared/${one}` : one);
		}
	}
	return paths;
}

/** Every violation, each as one line of text. */
export function violations() {
	const out = [];
	for (const named of layoutPaths())
		if (!fs.existsSync(path.join(root, named)))
			out.push(`docs/development.md's layout names ${named}, which does not exist`);
	const graph = importGraph();
	for (const component of cycles(graph)) out.push(`cycle: ${component.join(' <-> ')}`);
	for (const [file, targets] of graph) {
		for (const target of targets) {
			if (file.startsWith('nodes/shared/') && !target.startsWith('nodes/shared/'))
				out.push(`upward import: ${file} -> ${target}`);
			else if (file.startsWith(TRANSPORT) && !target.startsWith(TRANSPORT) && !isPure(target))
				out.push(`transport imports a feature: ${file} -> ${target}`);
			else if (isPure(file) && !isPure(target))
				out.push(`a pure helper imports more than pure helpers: ${file} -> ${target}`);
		}
	}
	for (const file of filesUnder('nodes', (f) => f.endsWith('.ts')))
		if (lines(file) > LIMITS.nodes) out.push(`long file: ${file} (over ${LIMITS.nodes} lines)`);
	for (const dir of ['scripts', 'sandbox', 'test'])
		for (const file of filesUnder(dir, (f) => /\.(js|mjs|ts)$/.test(f)))
			if (lines(file) > LIMITS.other) out.push(`long file: ${file} (over ${LIMITS.other} lines)`);
	const transport = filesUnder('nodes/shared/transport', (f) => f.endsWith('.ts')).reduce(
		(n, f) => n + lines(f),
		0,
	);
	if (transport > LIMITS.transport) out.push(`transport over ${LIMITS.transport} lines`);
	return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const knownFile = path.join(root, 'scripts', 'check', 'layout-known.json');
	const known = fs.existsSync(knownFile) ? JSON.parse(fs.readFileSync(knownFile, 'utf8')) : {};
	const found = violations();
	const fresh = found.filter((v) => !(v in known));
	const gone = Object.keys(known).filter((v) => !found.includes(v));
	for (const v of fresh) console.error(`layout: ${v}`);
	for (const v of gone)
		console.error(`layout: "${v}" is fixed: remove it from scripts/check/layout-known.json`);
	if (fresh.length || gone.length) process.exit(1);
	console.log(
		`layout: no new violation (${found.length} known, listed in scripts/check/layout-known.json with the issue that removes each)`,
	);
}
