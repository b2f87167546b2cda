// The tests' type check, on every `npm test`: the JavaScript under test/ (and the sandbox and scripts it
// requires) read by TypeScript with the package's own types (test/tsconfig.json: checkJs against dist/'s .d.ts,
// n8n's and Node's types, jest's globals from test/globals.d.ts), one pass, nothing emitted. The same as
// `tsc -p test`, except that a file listed in types-known.json (with the issue that types it) is not reported;
// the check fails on a listed file that has become clean, so the list only shrinks.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const configFile = path.join(root, 'test', 'tsconfig.json');
const knownFile = path.join(root, 'scripts', 'check', 'types-known.json');
const known = fs.existsSync(knownFile) ? JSON.parse(fs.readFileSync(knownFile, 'utf8')) : {};

const started = Date.now();
const config = ts.getParsedCommandLineOfConfigFile(
	configFile,
	{},
	{
		...ts.sys,
		onUnRecoverableConfigFileDiagnostic: (d) => {
			throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
		},
	},
);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const all = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
const fileOf = (d) => (d.file ? path.relative(root, d.file.fileName) : '');
const reported = all.filter((d) => !(fileOf(d) in known));
const clean = Object.keys(known).filter((file) => !all.some((d) => fileOf(d) === file));

const host = {
	getCanonicalFileName: (f) => f,
	getCurrentDirectory: () => root,
	getNewLine: () => '\n',
};
if (reported.length) console.error(ts.formatDiagnostics(reported, host).trimEnd());
for (const file of clean)
	console.error(`types: ${file} type-checks now: remove it from scripts/check/types-known.json`);
const checked = program.getSourceFiles().filter((f) => !f.fileName.includes('/node_modules/'));
const skipped = Object.keys(known).length;
console.log(
	`types: ${reported.length} error(s) in ${checked.length} files of tests, sandbox and scripts` +
		(skipped ? ` (${skipped} known, listed in scripts/check/types-known.json)` : '') +
		` (${((Date.now() - started) / 1000).toFixed(1)} s)`,
);
if (reported.length || clean.length) process.exit(1);
