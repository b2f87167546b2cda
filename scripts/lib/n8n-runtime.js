'use strict';
/**
 * The real n8n (the version scripts/n8n-runtime/package.json pins), installed once into .n8n-runtime/
 * (git-ignored, reused by the demo, the end-to-end suite and the benchmark). The compatibility run
 * (scripts/compat.js) points it at another version and folder with N8N_COMPAT_VERSION and N8N_COMPAT_DIR.
 */
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const RUNTIME_DIR = process.env.N8N_COMPAT_DIR
	? path.resolve(process.env.N8N_COMPAT_DIR)
	: path.join(ROOT, '.n8n-runtime');
const RUNTIME_MANIFEST = path.join(ROOT, 'scripts', 'n8n-runtime', 'package.json');
const N8N_BIN = path.join(RUNTIME_DIR, 'node_modules', 'n8n', 'bin', 'n8n');
const INSTALL_LOG = path.join(RUNTIME_DIR, 'install.log');
const SQLITE_BINDING = path.join(
	RUNTIME_DIR,
	'node_modules',
	'sqlite3',
	'build',
	'Release',
	'node_sqlite3.node',
);

const log = (message) => process.stderr.write(`${message}\n`);
const tail = (text, lines = 25) => text.trim().split('\n').slice(-lines).join('\n');

/**
 * Installs the pinned n8n into .n8n-runtime/ unless it is there already. The install prints hundreds of
 * lines (native builds): one progress line per phase here, the full output in .n8n-runtime/install.log.
 */
function ensureN8n() {
	const manifest = runtimeManifest(process.env.N8N_COMPAT_VERSION);
	if (runtimeIsCurrent(manifest)) return;
	log(
		`Installing n8n ${JSON.parse(manifest).dependencies.n8n} into ${path.relative(ROOT, RUNTIME_DIR)}/ (once; about 4 minutes and 1.3 GB)…`,
	);
	const started = Date.now();
	fs.mkdirSync(RUNTIME_DIR, { recursive: true });
	fs.rmSync(path.join(RUNTIME_DIR, '.installed'), { force: true });
	fs.writeFileSync(path.join(RUNTIME_DIR, 'package.json'), manifest);
	fs.writeFileSync(INSTALL_LOG, '');
	// `npm run` passes the project's own config (ignore-scripts=true from .npmrc) on as npm_config_* variables:
	// drop it here, or the native rebuild below silently does nothing.
	const env = { ...process.env, npm_config_nodedir: path.dirname(path.dirname(process.execPath)) };
	for (const key of Object.keys(env)) if (/^npm_config_ignore_scripts$/i.test(key)) delete env[key];
	// n8n's Kafka client fails its native build here, so scripts are off; the two native modules n8n needs are built.
	log('n8n install 1/2: npm install (about 3 min)…');
	installStep('npm install', () =>
		npmLogged(['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], env),
	);
	const reused = KEPT_BUILDS.filter(reuseNativeBuild);
	const rebuilt = NATIVE_MODULES.filter((name) => !reused.includes(name));
	log(
		`n8n install 2/2: build ${rebuilt.join(' and ') || 'nothing'}${reused.length ? ` (${reused.join(', ')}: built before, reused)` : ''}…`,
	);
	if (rebuilt.length > 0) {
		installStep(`build ${rebuilt.join(' and ')}`, () =>
			npmLogged(['rebuild', ...rebuilt, '--foreground-scripts', '--loglevel=error'], env),
		);
		rebuilt.filter((name) => KEPT_BUILDS.includes(name)).forEach(keepNativeBuild);
	}
	installStep('the sqlite3 check', () => {
		if (!fs.existsSync(SQLITE_BINDING))
			throw new Error(`n8n's sqlite3 did not build (${SQLITE_BINDING} is missing)`);
	});
	fs.writeFileSync(path.join(RUNTIME_DIR, '.installed'), installStamp(manifest));
	log(
		`n8n installed in ${Math.round((Date.now() - started) / 1000)} s (full log: ${path.relative(ROOT, INSTALL_LOG)})`,
	);
}

/**
 * The pinned manifest, or the same with another n8n version (same overrides). n8n before 2.35 takes its
 * spreadsheet library (xlsx) from its maker's own server rather than the registry, which the project's
 * machines cannot reach: those versions get the registry's newest xlsx (only the Spreadsheet File node uses it).
 */
function runtimeManifest(version) {
	const manifest = fs.readFileSync(RUNTIME_MANIFEST, 'utf8');
	if (!version) return manifest;
	const parsed = JSON.parse(manifest);
	parsed.dependencies = { ...parsed.dependencies, n8n: version };
	const [major, minor] = version.split('.').map(Number);
	if (major < 2 || (major === 2 && minor < 35))
		parsed.overrides = { ...parsed.overrides, xlsx: '0.18.5' };
	return `${JSON.stringify(parsed, null, '\t')}\n`;
}

/**
 * Whether .n8n-runtime/ holds a finished install of what the manifest asks for, under this Node. The stamp
 * hashes the manifest as installed (kept beside it); only the fields npm installs from are compared with the
 * current manifest, so editing its description does not cost a reinstall.
 */
function runtimeIsCurrent(manifest) {
	const stamp = path.join(RUNTIME_DIR, '.installed');
	const installedManifest = path.join(RUNTIME_DIR, 'package.json');
	if (![N8N_BIN, SQLITE_BINDING, stamp, installedManifest].every((file) => fs.existsSync(file)))
		return false;
	const installed = fs.readFileSync(installedManifest, 'utf8');
	if (fs.readFileSync(stamp, 'utf8') !== installStamp(installed)) return false;
	const installs = (text) => {
		const { dependencies, overrides } = JSON.parse(text);
		return JSON.stringify({ dependencies, overrides });
	};
	return installs(installed) === installs(manifest);
}

const installStamp = (manifest) =>
	crypto.createHash('sha1').update(manifest).update(process.version).digest('hex');

/** The native modules n8n needs built; sqlite3 compiles for minutes (isolated-vm ships prebuilt), so its build is kept. */
const NATIVE_MODULES = ['sqlite3', 'isolated-vm'];
const KEPT_BUILDS = ['sqlite3'];
const NATIVE_BUILDS = path.join(ROOT, '.toolchain', 'native-builds');

/** Where the build of `name` as installed now is kept: by its version, this Node's ABI, the platform. */
function nativeBuildDir(name) {
	const moduleDir = path.join(RUNTIME_DIR, 'node_modules', name);
	const { version } = JSON.parse(fs.readFileSync(path.join(moduleDir, 'package.json'), 'utf8'));
	const key = `${name}@${version}-abi${process.versions.modules}-${process.platform}-${process.arch}`;
	return { built: path.join(moduleDir, 'build'), kept: path.join(NATIVE_BUILDS, key) };
}

/** Copies a kept build of `name` into place; false when there is none. */
function reuseNativeBuild(name) {
	const { built, kept } = nativeBuildDir(name);
	if (!fs.existsSync(kept)) return false;
	fs.cpSync(kept, built, { recursive: true });
	return true;
}

function keepNativeBuild(name) {
	const { built, kept } = nativeBuildDir(name);
	if (!fs.existsSync(built)) return;
	fs.rmSync(kept, { recursive: true, force: true });
	fs.cpSync(built, kept, { recursive: true });
}

/** Runs npm in .n8n-runtime/ with its output appended to the install log. */
function npmLogged(args, env) {
	fs.appendFileSync(INSTALL_LOG, `\n$ npm ${args.join(' ')}\n`);
	const out = fs.openSync(INSTALL_LOG, 'a');
	try {
		execFileSync('npm', args, { cwd: RUNTIME_DIR, env, stdio: ['ignore', out, out] });
	} finally {
		fs.closeSync(out);
	}
}

/** A failed install step: the log's last lines on the terminal, and where the rest is. */
function installStep(what, step) {
	try {
		step();
	} catch (error) {
		const logTail = fs.existsSync(INSTALL_LOG)
			? tail(fs.readFileSync(INSTALL_LOG, 'utf8'), 30)
			: '';
		if (logTail) log(logTail);
		const reason =
			typeof error.status === 'number' ? `npm exited with ${error.status}` : error.message;
		throw new Error(
			`Installing n8n failed at ${what}: ${reason}. Its last lines are above; the full log: ${INSTALL_LOG}`,
		);
	}
}

module.exports = { ROOT, RUNTIME_DIR, N8N_BIN, ensureN8n, runtimeManifest, log, tail };
