'use strict';
/**
 * `npm run docs`: builds the package and writes docs/node-reference.md from the built node descriptions, as
 * n8n loads them (its own package loader, so fields n8n adds, like a polling trigger's Poll Times, are there
 * too), plus the hand-written notes of scripts/docs/reference-notes.md. `--no-build` uses dist/ as it is.
 * test/release/nodeReference.test.js fails when the committed page differs from `render()`.
 */
const fs = require('node:fs');
const path = require('node:path');

const {
	cell,
	code,
	defaultWords,
	matches,
	rows,
	table,
	versionsOf,
	versionWords,
} = require('./properties');

const ROOT = path.resolve(__dirname, '..', '..');
const OUTPUT = 'docs/node-reference.md';
const NOTES = 'scripts/docs/reference-notes.md';

/** The notes file's sections by key (`## message:send` → 'message:send'). */
function readNotes(root) {
	const text = fs.readFileSync(path.join(root, NOTES), 'utf8').replace(/<!--[\s\S]*?-->\n*/g, '');
	const notes = new Map();
	for (const [, key, body] of text.matchAll(/^## (\S+)[ \t]*\n([\s\S]*?)(?=^## |(?![\s\S]))/gm))
		notes.set(key, body.trim());
	return notes;
}

/** The package's nodes and credentials as n8n loads them, and the properties each node declares itself. */
async function loadPackage(root) {
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const own = new Map();
	for (const file of pkg.n8n.nodes) {
		const exports = require(path.join(root, file));
		for (const NodeClass of Object.values(exports)) {
			const node = new NodeClass();
			const versions = node.nodeVersions ? Object.values(node.nodeVersions) : [node];
			for (const { description } of versions)
				for (const v of [description.version].flat())
					own.set(`${description.name}@${v}`, new Set(description.properties.map((p) => p.name)));
		}
	}
	require('reflect-metadata');
	const { PackageDirectoryLoader } = require('n8n-core');
	const loader = new PackageDirectoryLoader(root);
	await loader.loadAll();
	const credentials = pkg.n8n.credentials.flatMap((file) =>
		Object.values(require(path.join(root, file))).map((Credential) => new Credential()),
	);
	return { nodes: loader.types.nodes, own, credentials };
}

/** Whether a top-level property shows for a resource and operation (undefined: a node-wide field). */
function showsFor(property, resource, operation) {
	const show = property.displayOptions?.show ?? {};
	const hide = property.displayOptions?.hide ?? {};
	if (!show.resource && !show.operation) return undefined;
	const fits = (key, value) =>
		(!show[key] || matches(show[key], value)) && !(hide[key] && matches(hide[key], value));
	return fits('resource', resource) && fits('operation', operation);
}

/** Variants of one field that differ only by version and default become one row with a default per version. */
function mergeVersions(properties, versions) {
	const strip = (p) => {
		const { default: _d, displayOptions, ...rest } = p;
		const show = { ...displayOptions?.show };
		delete show['@version'];
		return JSON.stringify({ ...rest, show, hide: displayOptions?.hide });
	};
	const out = [];
	for (const property of properties) {
		const twin = out.find((p) => p.name === property.name && strip(p) === strip(property));
		if (!twin) {
			out.push(property);
			continue;
		}
		const first = twin.variants?.[0]?.property ?? twin;
		const variants = twin.variants ?? [
			{ property: first, words: versionWords(versionsOf(first, versions), versions) },
		];
		const merged = { ...first, variants: [...variants] };
		merged.variants.push({
			property,
			words: versionWords(versionsOf(property, versions), versions),
		});
		out[out.indexOf(twin)] = merged;
	}
	return out;
}

/** Fields table of some properties of a node version (or of the versioned node's `versions`). */
function fieldsTable(properties, context) {
	const { all, versions, own, skip = [] } = context;
	const scope = (name) =>
		properties.find((p) => p.name === name) ?? all.find((p) => p.name === name);
	const notes = (property, top) => {
		const said = [];
		if (own && top && !own.has(property.name)) said.push('Added by n8n to every polling trigger.');
		const shown = property.variants
			? property.variants.flatMap((v) => versionsOf(v.property, versions))
			: versionsOf(property, versions);
		if (versions.length > 1 && shown.length < versions.length)
			said.push(`Only in ${versionWords(shown, versions)}.`);
		return said;
	};
	return table(rows(mergeVersions(properties, versions), { scope, skip, notes }));
}

const anchor = (heading) =>
	heading
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s-]/gu, '')
		.replace(/\s/g, '-');

/** The hand-written part of a section, marked as such. */
function noted(notes, key, used) {
	if (!notes.has(key)) return '';
	used.add(key);
	return `**Hand-written notes** (what the descriptions cannot say):\n\n${notes.get(key)}\n\n`;
}

function messagingNode(node, notes, used) {
	const versions = [node.version].flat();
	const all = node.properties;
	const resourceProperty = all.find((p) => p.name === 'resource');
	const operations = resourceProperty.options.flatMap((resource) => {
		const property = all.find(
			(p) =>
				p.name === 'operation' && matches(p.displayOptions?.show?.resource ?? [], resource.value),
		);
		return property.options.map((operation) => ({ resource, operation }));
	});
	const heading = ({ resource, operation }) => `${resource.name}: ${operation.name}`;
	let out = `## ${node.displayName} node\n\n${node.description}.\n\n`;
	out += `Versions ${and(versions)}; a new node gets version ${node.defaultVersion ?? versions.at(-1)}, `;
	out += 'and a workflow keeps the version its node was added with.';
	out += node.usableAsTool ? ' Usable as an AI Agent tool.' : '';
	out += `\n\n### Operations\n\n| Resource | Operation | Action | Description |\n|---|---|---|---|\n`;
	for (const entry of operations)
		out += `| ${entry.resource.name} | [${entry.operation.name}](#${anchor(heading(entry))}) ${code(entry.operation.value)} | ${entry.operation.action} | ${entry.operation.description} |\n`;
	out += `\n### Fields of every operation\n\n`;
	const perOperation = toolDefaults(all);
	const nodeWide = all
		.filter((p) => p.name === 'operation' || showsFor(p) === undefined)
		.map((p) =>
			p.name === 'operation'
				? { ...p, options: p.options.map(({ name, value }) => ({ name, value })) }
				: p,
		)
		.map((p) =>
			perOperation.has(p.name) ? { ...p, defaultText: perOperation.get(p.name).fallback } : p,
		);
	out += `${fieldsTable(nodeWide, { all, versions })}\n\n`;
	out += versionDifferences(all, operations, versions, heading);
	if (notes.has('messaging')) out += `### Every operation\n\n${noted(notes, 'messaging', used)}`;
	for (const entry of operations) {
		const { resource, operation } = entry;
		const key = `${resource.value}:${operation.value}`;
		if (!notes.has(key))
			throw new Error(
				`${NOTES} has no section "## ${key}" (what ${heading(entry)} sends and returns)`,
			);
		const fields = all.filter(
			(p) => p.name !== 'operation' && showsFor(p, resource.value, operation.value),
		);
		out += `### ${heading(entry)}\n\n*${operation.action}* (${code(`resource: ${resource.value}`)}, ${code(`operation: ${operation.value}`)}): ${operation.description}.\n\n`;
		out += fields.length
			? `${fieldsTable(fields, { all, versions, skip: ['resource', 'operation'] })}\n\n`
			: 'No fields.\n\n';
		for (const [name, { texts }] of perOperation) {
			const text = texts[resource.value]?.[operation.value];
			const label = all.find((p) => p.name === name).displayName;
			if (text) out += `**As an AI Agent tool**, *${label}* is by default: "${cell(text)}"\n\n`;
		}
		out += noted(notes, key, used);
	}
	return out;
}

/**
 * Fields whose default is an expression choosing a text per resource and operation (the tool's Description):
 * the texts by resource and operation, and the default cell pointing to them.
 */
function toolDefaults(all) {
	const found = new Map();
	const shape =
		/^=\{\{\s*(\{[\s\S]*\})\[\$parameter\.resource\]\?\.\[\$parameter\.operation\]\s*\?\?\s*("(?:[^"\\]|\\.)*")\s*\}\}$/;
	for (const property of all) {
		const m = typeof property.default === 'string' && shape.exec(property.default);
		if (!m) continue;
		const texts = JSON.parse(m[1]);
		const fallback = `the chosen operation's text (under each operation below), else ${code(JSON.parse(m[2]))}`;
		found.set(property.name, { texts, fallback });
	}
	return found;
}

/** Fields whose versions differ, and how: one row per field and difference, with the operations it is in. */
function versionDifferences(all, operations, versions, heading) {
	if (versions.length < 2) return '';
	const versioned = flatten(all).filter(
		({ property }) => versionsOf(property, versions).length < versions.length,
	);
	const describe = (p) => (p ? `default ${defaultWords(p)}` : 'not shown');
	const differences = new Map();
	for (const entry of operations) {
		const { resource, operation } = entry;
		const here = versioned.filter(
			({ top }) => showsFor(top, resource.value, operation.value) !== false,
		);
		for (const label of new Set(here.map((f) => f.label))) {
			const variants = here.filter((f) => f.label === label).map((f) => f.property);
			const cells = versions.map((v) =>
				describe(variants.find((p) => versionsOf(p, versions).includes(v))),
			);
			const key = `${label}|${cells.join('|')}`;
			const row = differences.get(key) ?? { label, cells, where: [] };
			row.where.push(`[${heading(entry)}](#${anchor(heading(entry))})`);
			differences.set(key, row);
		}
	}
	let out = `### Differences between versions\n\nFields shown in some versions only, or with another default. `;
	out += `Every other field is the same in versions ${and(versions)}.\n\n`;
	out += `| Field | Operations | ${versions.map((v) => `Version ${v}`).join(' | ')} |\n|---|---|${versions.map(() => '---|').join('')}\n`;
	for (const { label, cells, where } of differences.values())
		out += `| ${label} | ${where.join(', ')} | ${cells.join(' | ')} |\n`;
	return `${out}\n`;
}

/** Every property and nested option, with the top-level property it sits in and its label as in the tables. */
function flatten(properties, top, path = []) {
	return properties.flatMap((property) => {
		const label = [...path, `**${property.displayName}**`].join(' → ') + ` ${code(property.name)}`;
		const self = { property, top: top ?? property, label };
		const inner =
			property.type === 'collection'
				? (property.options ?? [])
				: property.type === 'fixedCollection'
					? (property.options ?? []).flatMap((group) => group.values ?? [])
					: [];
		return [self, ...flatten(inner, top ?? property, [...path, property.displayName])];
	});
}

const and = (list) =>
	list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : `${list[0]}`;

function triggerNode(descriptions, own, notes, used) {
	const [first] = descriptions;
	const versions = descriptions.map((d) => d.version).sort((a, b) => b - a);
	let out = `## ${first.displayName}\n\n${first.description}.\n\n`;
	out += `Versions ${and([...versions].reverse())}; a new node gets version ${first.defaultVersion ?? versions[0]}. `;
	out += 'Each version is its own set of fields.\n\n';
	out += noted(notes, 'trigger', used);
	for (const version of versions) {
		const d = descriptions.find((x) => x.version === version);
		out += `### ${first.displayName} version ${version}\n\n`;
		if (d.polling) out += 'A polling trigger: n8n runs its checks at the *Poll Times*.\n\n';
		out += `${fieldsTable(d.properties, { all: d.properties, versions: [version], own: own.get(`${d.name}@${version}`) })}\n\n`;
		out += noted(notes, `trigger:v${version}`, used);
	}
	return out;
}

function credentialSection(credential, notes, used) {
	let out = `## ${credential.displayName} credential\n\n`;
	out += `${fieldsTable(credential.properties, { all: credential.properties, versions: [1] })}\n\n`;
	const request = credential.test?.request;
	if (request) {
		const query = new URLSearchParams(request.qs ?? {}).toString();
		const base = /\/v1['"]?\s*$/.test(String(request.baseURL ?? '')) ? '/v1' : '';
		out += `**Test** sends ${code(`${request.method ?? 'GET'} ${base}${request.url}${query ? `?${query}` : ''}`)}`;
		const rules = (credential.test.rules ?? []).filter((r) => r.type === 'responseCode');
		out += rules.length
			? `; it reports ${rules.map((r) => `${r.properties.value} as "${r.properties.message}"`).join(', and ')}.\n\n`
			: '.\n\n';
	}
	out += noted(notes, 'credential', used);
	return out;
}

/** The whole page. */
async function render(root = ROOT) {
	const notes = readNotes(root);
	const used = new Set();
	const { nodes, own, credentials } = await loadPackage(root);
	const byName = new Map();
	for (const d of nodes) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
	let body = '';
	const contents = [];
	for (const [name, descriptions] of byName) {
		const isTrigger = descriptions[0].group.includes('trigger');
		const title = isTrigger ? descriptions[0].displayName : `${descriptions[0].displayName} node`;
		contents.push(`[${title}](#${anchor(title)})`);
		if (isTrigger) body += triggerNode(descriptions, own, notes, used);
		else if (descriptions.length === 1) body += messagingNode(descriptions[0], notes, used);
		else throw new Error(`${name}: a versioned regular node (nodeVersions) is not rendered yet`);
	}
	for (const credential of credentials) {
		contents.push(
			`[${credential.displayName} credential](#${anchor(`${credential.displayName} credential`)})`,
		);
		body += credentialSection(credential, notes, used);
	}
	const header = `<!-- Generated by \`npm run docs\` (scripts/docs/reference.js) from the built node descriptions and ${NOTES}. Do not edit: change the node or the notes, then run npm run docs. -->\n\n`;
	let intro = `# Node reference\n\nEvery resource, operation, field and option of the nodes and the credential, as the editor shows them, `;
	intro += `generated from the nodes themselves. Contents: ${contents.join(' · ')}.\n\n`;
	intro +=
		'Each row is a field; an option inside a collection is named by its path (*Options → Timeout*). ';
	intro +=
		'"Shown when" names the other field whose value shows it. The paragraphs under **Hand-written notes** ';
	intro += `(what each operation sends and returns) are kept in ${NOTES}; everything else comes from the nodes.\n\n`;
	const unused = [...notes.keys()].filter((key) => !used.has(key));
	if (unused.length) throw new Error(`${NOTES}: sections that match nothing: ${unused.join(', ')}`);
	return `${header}${intro}${body}`.replace(/\n{3,}/g, '\n\n').replace(/\n*$/, '\n');
}

async function main() {
	if (!process.argv.includes('--no-build')) require('../lib/build').buildPackage();
	const text = await render();
	fs.writeFileSync(path.join(ROOT, OUTPUT), text);
	console.log(
		`docs: wrote ${OUTPUT} (${text.split('\n').length - 1} lines, ${text.length} characters)`,
	);
}

if (require.main === module)
	main().catch((error) => {
		console.error(error.message ?? error);
		process.exit(1);
	});

module.exports = { render, OUTPUT };
