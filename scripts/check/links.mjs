// Every link a user follows from the package resolves: the relative links and anchors of README.md,
// CHANGELOG.md and every Markdown page under docs/ (to files, and to headings in Markdown files); the source
// files README.md and docs/ name in code, inline or in a block (`nodes/shared/transport/retry.ts`,
// `helpers/concurrency.ts`) exist,
// so a file that moved is caught; and every address of this repository that the codex files, the credential's
// documentationUrl and package.json name (mapped to the local file and heading). docs/README.md, the index of
// docs/, lists every page there.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(
	process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
);
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const problems = [];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(file) {
	const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
	const seen = new Map();
	const anchors = new Set();
	for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const base = heading
			.replace(/<[^>]+>/g, '')
			.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
			.replace(/[`*_]/g, '')
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s-]/gu, '')
			.replace(/\s/g, '-');
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		anchors.add(n === 0 ? base : `${base}-${n}`);
	}
	for (const [, name] of text.matchAll(/<a name="([^"]+)"/g)) anchors.add(name);
	return anchors;
}

function checkTarget(from, target, where) {
	const [file, anchor] = target.split('#');
	const resolved = file ? path.resolve(path.dirname(from), decodeURI(file)) : from;
	if (!resolved.startsWith(root) || !fs.existsSync(resolved)) {
		problems.push(`${where}: ${target} (no such file)`);
		return;
	}
	if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
		problems.push(
			`${where}: ${target} (no heading #${anchor} in ${path.relative(root, resolved)})`,
		);
}

/** An address of this repository, as the local file it shows (README.md for the repository itself). */
function checkRepoUrl(url, where) {
	if (!url.startsWith(repo)) {
		problems.push(`${where}: ${url} is not an address of ${repo} (package.json's repository)`);
		return;
	}
	const rest = url.slice(repo.length);
	if (/^\/(issues|releases|actions)(\/|$)/.test(rest)) return;
	const m = /^(?:\/(?:blob|tree)\/main\/([^#]*))?(?:#(.*))?$/.exec(rest);
	if (!m) {
		problems.push(`${where}: ${url} (not a file of the main branch)`);
		return;
	}
	const file = m[1] || 'README.md';
	checkTarget(
		path.join(root, 'README.md'),
		`${path.relative(root, path.join(root, file))}${m[2] ? `#${m[2]}` : ''}`,
		where,
	);
}

/** Every file of the repository (not dependencies, build output or dot folders), as paths from the root. */
function repositoryFiles(dir = root, out = []) {
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		if (entry.name.startsWith('.') || ['node_modules', 'dist'].includes(entry.name)) continue;
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) repositoryFiles(full, out);
		else out.push(path.relative(root, full).split(path.sep).join('/'));
	}
	return out;
}

/** Folders of the repository by name (`transport`, `helpers`): a path in code starting with one is ours. */
function folderNames(files) {
	const names = new Set();
	for (const file of files) for (const part of file.split('/').slice(0, -1)) names.add(part);
	return names;
}

let files;
let folders;
/**
 * A path of this repository named in code (`nodes/MessagingTrigger/plan.ts`, or its tail `v2/schedule.ts`)
 * must be a file: from the root, from the page, or the end of one. A path whose first folder is none of
 * ours (n8n's `packages/cli/…`) is not checked.
 */
function checkCodePath(from, span, where) {
	const m = /^((?:[\w@.-]+\/)+[\w@.-]+\.(?:ts|js|mjs|cjs|json|md|sh|yml))(?::\d+(?:-\d+)?)?$/.exec(
		span,
	);
	if (!m || m[1].startsWith('dist/')) return;
	const file = m[1].replace(/^\.\//, '');
	files ??= repositoryFiles();
	folders ??= folderNames(files);
	const fromPage = path
		.relative(root, path.resolve(path.dirname(from), file))
		.split(path.sep)
		.join('/');
	if (files.includes(file) || files.includes(fromPage) || files.some((f) => f.endsWith(`/${file}`)))
		return;
	if (!folders.has(file.split('/')[0])) return;
	problems.push(`${where}: \`${span}\` (no such file: moved or renamed?)`);
}

const docsDir = path.join(root, 'docs');
const docsPages = fs.existsSync(docsDir)
	? fs
			.readdirSync(docsDir, { recursive: true })
			.filter((f) => f.endsWith('.md'))
			.map((f) => path.join('docs', f).split(path.sep).join('/'))
			.sort()
	: [];

for (const doc of ['README.md', 'CHANGELOG.md', ...docsPages]) {
	const file = path.join(root, doc);
	if (!fs.existsSync(file)) {
		problems.push(`${doc} is missing`);
		continue;
	}
	const whole = fs.readFileSync(file, 'utf8');
	const withCode = whole.replace(/```[\s\S]*?```/g, '');
	// The CHANGELOG names files as they were when each entry was written.
	if (doc !== 'CHANGELOG.md') {
		for (const [, span] of withCode.matchAll(/`([^`\n]+)`/g)) checkCodePath(file, span.trim(), doc);
		for (const [block] of whole.matchAll(/```[\s\S]*?```/g))
			for (const word of block.split(/[\s"'(),`]+/)) checkCodePath(file, word, doc);
	}
	const text = withCode.replace(/`[^`\n]*`/g, '');
	const links = [
		...[...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]),
		...[...text.matchAll(/^\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]),
		...[...text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]),
	];
	for (const link of links) {
		if (/^(mailto:|https?:\/\/)/.test(link)) {
			if (link.startsWith(repo)) checkRepoUrl(link, doc);
			continue;
		}
		checkTarget(file, link, doc);
	}
}

// The index of docs/ lists every page, so a new page is found from it.
if (docsPages.includes('docs/README.md')) {
	const index = fs.readFileSync(path.join(root, 'docs', 'README.md'), 'utf8');
	const listed = new Set(
		[...index.matchAll(/\]\(([^)#\s]+)/g)].map((m) => path.posix.join('docs', m[1])),
	);
	for (const page of docsPages)
		if (page !== 'docs/README.md' && !listed.has(page))
			problems.push(`docs/README.md does not list ${page} (add it to the index)`);
}

const codexFiles = [
	'nodes/Messaging/Messaging.node.json',
	'nodes/MessagingTrigger/MessagingTrigger.node.json',
];
for (const codex of codexFiles) {
	const { resources = {} } = JSON.parse(fs.readFileSync(path.join(root, codex), 'utf8'));
	for (const list of Object.values(resources)) for (const { url } of list) checkRepoUrl(url, codex);
}
for (const file of fs
	.readdirSync(path.join(root, 'credentials'))
	.filter((f) => f.endsWith('.ts'))) {
	const text = fs.readFileSync(path.join(root, 'credentials', file), 'utf8');
	for (const [, url] of text.matchAll(/documentationUrl\s*=\s*'([^']+)'/g))
		checkRepoUrl(url, `credentials/${file}`);
}
for (const [field, url] of [
	['homepage', pkg.homepage],
	['bugs.url', pkg.bugs?.url],
]) {
	if (!url) problems.push(`package.json: ${field} is missing`);
	else if (field === 'bugs.url' ? url !== `${repo}/issues` : !url.startsWith(repo))
		problems.push(`package.json: ${field} ${url} does not belong to ${repo}`);
	else if (field === 'homepage') checkRepoUrl(url.replace('#readme', ''), `package.json ${field}`);
}

if (problems.length) {
	console.error(`links: ${problems.length} broken\n${problems.join('\n')}`);
	process.exit(1);
}
console.log(
	`links: every link of README.md, CHANGELOG.md, ${docsPages.length} pages of docs/, the codex files and package.json resolves`,
);
