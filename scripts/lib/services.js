'use strict';
/**
 * Real Redis and Postgres for the queue-mode suite, from Debian's packages, each started on a free
 * loopback port in its own temporary folder and gone (process and folder) when the script ends,
 * also on failure or Ctrl-C. A missing package is installed with apt-get when running as root
 * (waiting for another apt-get to release the dpkg lock), or named in a clear error otherwise.
 */
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const { freePort } = require('./ports');

const APT_LOCK_WAIT_SECONDS = 900;
const isRoot = () => process.getuid?.() === 0;
const tail = (text, lines = 20) => text.trim().split('\n').slice(-lines).join('\n');

// ---- cleanup on every way out ----

const cleanups = [];
let cleaning;
// Last resort when the script exits without running cleanup(): kill what is still running, remove folders.
const liveGroups = new Set();
const liveDirs = new Set();
process.on('exit', () => {
	for (const pid of liveGroups) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
	for (const dir of liveDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Registers `fn` (sync or async) to run once when the script ends; the latest runs first. */
function onCleanup(fn) {
	cleanups.push(fn);
	return fn;
}

/** Runs the registered cleanups (n8n processes, then services, then folders). */
async function cleanup() {
	cleaning ??= (async () => {
		while (cleanups.length > 0) {
			const fn = cleanups.pop();
			try {
				await fn();
			} catch (error) {
				process.stderr.write(`cleanup: ${error.message}\n`);
			}
		}
	})();
	return await cleaning;
}

let handlersInstalled = false;
/** Ctrl-C / SIGTERM: clean up, then exit with the signal's conventional code. */
function installSignalHandlers() {
	if (handlersInstalled) return;
	handlersInstalled = true;
	for (const [signal, code] of [
		['SIGINT', 130],
		['SIGTERM', 143],
		['SIGHUP', 129],
	]) {
		process.once(signal, () => {
			process.stderr.write(`\n${signal}: stopping services and removing their folders…\n`);
			const force = setTimeout(() => process.exit(code), 30_000);
			force.unref();
			cleanup().finally(() => process.exit(code));
		});
	}
}

/** A temporary folder removed at cleanup; `forUser` makes it owned by that user (Postgres). */
function tempDir(prefix, forUser) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	if (forUser && isRoot()) execFileSync('chown', [`${forUser}:`, dir]);
	liveDirs.add(dir);
	onCleanup(() => {
		fs.rmSync(dir, { recursive: true, force: true });
		liveDirs.delete(dir);
	});
	return dir;
}

// ---- packages ----

const REDIS_BIN = '/usr/bin/redis-server';

function postgresBinDir() {
	const base = '/usr/lib/postgresql';
	if (!fs.existsSync(base)) return undefined;
	const versions = fs
		.readdirSync(base)
		.filter(
			(v) =>
				fs.existsSync(path.join(base, v, 'bin', 'initdb')) &&
				fs.existsSync(path.join(base, v, 'bin', 'postgres')),
		)
		.sort((a, b) => Number(b) - Number(a));
	return versions.length > 0 ? path.join(base, versions[0], 'bin') : undefined;
}

function missingPackages() {
	const missing = [];
	if (!fs.existsSync(REDIS_BIN)) missing.push({ service: 'Redis', pkg: 'redis-server' });
	if (!postgresBinDir()) missing.push({ service: 'Postgres', pkg: 'postgresql' });
	return missing;
}

/**
 * Makes sure redis-server and postgresql are installed: apt-get as root (waiting for the dpkg lock
 * if another install runs), otherwise an error naming what to install.
 */
function ensureServicePackages({ log = (m) => process.stderr.write(`${m}\n`) } = {}) {
	let missing = missingPackages();
	if (missing.length === 0) return;
	const names = missing.map((m) => m.pkg);
	const what = missing.map((m) => `${m.service} (Debian package ${m.pkg})`).join(' and ');
	if (!isRoot() || !fs.existsSync('/usr/bin/apt-get')) {
		throw new Error(
			`${what} ${missing.length > 1 ? 'are' : 'is'} not installed. Install ${missing.length > 1 ? 'them' : 'it'} with: ` +
				`sudo apt-get install -y ${names.join(' ')}`,
		);
	}
	log(
		`Installing ${names.join(' ')} with apt-get (waits up to ${APT_LOCK_WAIT_SECONDS / 60} min for another apt-get to finish)…`,
	);
	const apt = (args) =>
		spawnSync('apt-get', ['-o', `DPkg::Lock::Timeout=${APT_LOCK_WAIT_SECONDS}`, ...args], {
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			encoding: 'utf8',
		});
	let result = apt(['install', '-y', '--no-install-recommends', ...names]);
	if (result.status !== 0) {
		// A fresh machine may have no package lists yet.
		apt(['update']);
		result = apt(['install', '-y', '--no-install-recommends', ...names]);
	}
	missing = missingPackages();
	if (result.status !== 0 || missing.length > 0) {
		throw new Error(
			`apt-get could not install ${names.join(' ')} (exit ${result.status}):\n${tail(`${result.stdout}\n${result.stderr}`)}\n` +
				`Install ${what} yourself: apt-get install -y ${names.join(' ')}`,
		);
	}
}

// ---- processes ----

/** Spawns a server in its own process group, logging into `logFile`; `stop()` ends the group. */
function spawnServer(name, command, args, { logFile, stopSignal = 'SIGTERM', env } = {}) {
	const out = fs.openSync(logFile, 'a');
	const child = spawn(command, args, {
		stdio: ['ignore', out, out],
		detached: true,
		env: env ?? process.env,
	});
	fs.closeSync(out);
	liveGroups.add(child.pid);
	const exited = new Promise((resolve) =>
		child.once('exit', (code, signal) => {
			liveGroups.delete(child.pid);
			resolve(code ?? signal);
		}),
	);
	const signalGroup = (signal) => {
		try {
			process.kill(-child.pid, signal);
		} catch {
			// already gone
		}
	};
	const stop = async () => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		signalGroup(stopSignal);
		const timer = setTimeout(() => signalGroup('SIGKILL'), 10_000);
		await exited;
		clearTimeout(timer);
	};
	onCleanup(stop);
	const lastLines = () =>
		fs.existsSync(logFile) ? tail(fs.readFileSync(logFile, 'utf8')) : '(no output)';
	return { name, child, exited, stop, lastLines, logFile };
}

/** Polls `probe` until it resolves true; fails with the server's last log lines if it exits or times out. */
async function waitReady(server, probe, { timeoutMs, hint }) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (server.child.exitCode !== null || server.child.signalCode !== null) {
			throw new Error(
				`${server.name} exited (${server.child.exitCode ?? server.child.signalCode}) while starting. ${hint}\n${server.lastLines()}`,
			);
		}
		if (await probe().catch(() => false)) return;
		if (Date.now() > deadline) {
			await server.stop();
			throw new Error(
				`${server.name} did not become ready within ${timeoutMs / 1000} s. ${hint}\n${server.lastLines()}`,
			);
		}
		await new Promise((r) => setTimeout(r, 200));
	}
}

/** One request/answer on a fresh TCP connection (Redis's inline protocol). */
function tcpAsk(port, line, timeoutMs = 1000) {
	return new Promise((resolve, reject) => {
		const socket = net.connect(port, '127.0.0.1');
		let answer = '';
		const timer = setTimeout(() => {
			socket.destroy();
			reject(new Error('timeout'));
		}, timeoutMs);
		socket.on('connect', () => socket.write(line));
		socket.on('data', (d) => {
			answer += d;
			if (answer.includes('\r\n')) {
				clearTimeout(timer);
				socket.end();
				resolve(answer);
			}
		});
		socket.on('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
	});
}

/** redis-server on a free loopback port, nothing persisted, data folder removed at cleanup. */
async function startRedis({ timeoutMs = 20_000 } = {}) {
	if (!fs.existsSync(REDIS_BIN))
		throw new Error('Redis is not installed: apt-get install -y redis-server');
	const dir = tempDir('queue-redis-');
	const port = await freePort();
	const server = spawnServer(
		'Redis',
		REDIS_BIN,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--dir',
			dir,
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
			'--logfile',
			'',
		],
		{ logFile: path.join(dir, 'redis.log') },
	);
	await waitReady(server, async () => (await tcpAsk(port, 'PING\r\n')).startsWith('+PONG'), {
		timeoutMs,
		hint: 'Check the Debian package redis-server (apt-get install -y redis-server).',
	});
	return { ...server, host: '127.0.0.1', port, dir };
}

/** runuser lives in /usr/sbin, which a PATH set for a user (or a CI step) may leave out. */
function runuserPath() {
	return (
		['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((p) => fs.existsSync(p)) ??
		'runuser'
	);
}

/**
 * A throwaway Postgres cluster: initdb (as the `postgres` user when root: initdb refuses root), then
 * `postgres` on a free loopback port with durability off (a test database), and one database.
 */
async function startPostgres({ database = 'n8n', user = 'n8n', timeoutMs = 60_000 } = {}) {
	const bin = postgresBinDir();
	if (!bin) throw new Error('Postgres is not installed: apt-get install -y postgresql');
	const asPostgres = isRoot();
	if (asPostgres && spawnSync('id', ['-u', 'postgres']).status !== 0) {
		throw new Error(
			'Running as root, but there is no `postgres` user to run Postgres as (it comes with the Debian package postgresql).',
		);
	}
	const runAs = (command, args) =>
		asPostgres ? [runuserPath(), ['-u', 'postgres', '--', command, ...args]] : [command, args];
	const dir = tempDir('queue-postgres-', asPostgres ? 'postgres' : undefined);
	const data = path.join(dir, 'data');
	const [initCommand, initArgs] = runAs(path.join(bin, 'initdb'), [
		'-D',
		data,
		'-U',
		user,
		'--auth=trust',
		'-E',
		'UTF8',
		'--locale=C',
		'--no-instructions',
	]);
	const init = spawnSync(initCommand, initArgs, { encoding: 'utf8', cwd: dir });
	if (init.status !== 0) {
		throw new Error(
			`Postgres initdb failed (exit ${init.status}${init.error ? `, ${init.error.message}` : ''}):\n${tail(`${init.stdout}\n${init.stderr}`)}`,
		);
	}
	const port = await freePort();
	const [command, args] = runAs(path.join(bin, 'postgres'), [
		'-D',
		data,
		'-p',
		String(port),
		'-k',
		dir,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
		'-c',
		'logging_collector=off',
	]);
	// SIGINT is Postgres's "fast shutdown": it ends the sessions and stops at once.
	const server = spawnServer('Postgres', command, args, {
		logFile: path.join(dir, 'postgres.log'),
		stopSignal: 'SIGINT',
	});
	const client = (name, clientArgs) =>
		spawnSync(
			path.join(bin, name),
			['-h', '127.0.0.1', '-p', String(port), '-U', user, ...clientArgs],
			{ encoding: 'utf8', timeout: 10_000 },
		);
	await waitReady(server, async () => client('pg_isready', ['-d', 'postgres']).status === 0, {
		timeoutMs,
		hint: 'Check the Debian package postgresql (apt-get install -y postgresql).',
	});
	const created = client('createdb', [database]);
	if (created.status !== 0)
		throw new Error(`Postgres createdb ${database} failed:\n${created.stderr}`);
	return {
		...server,
		host: '127.0.0.1',
		port,
		user,
		password: 'unused',
		database,
		dir,
	};
}

module.exports = {
	ensureServicePackages,
	startRedis,
	startPostgres,
	onCleanup,
	cleanup,
	installSignalHandlers,
	tempDir,
	freePort,
	spawnServer,
	waitReady,
};
