'use strict';
/**
 * The real n8n that the demo, the end-to-end suite and the benchmark use (installed by ./n8n-runtime.js),
 * with this package installed into a user folder as n8n's community-package installer does it (./n8n-install.js);
 * its CLI, `n8n start`, and its REST API as the editor uses it.
 */
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, RUNTIME_DIR, N8N_BIN, ensureN8n, log, tail } = require('./n8n-runtime');
const {
	PACKAGE_NAME,
	packPackage,
	installPackage,
	installFolderPackage,
} = require('./n8n-install');
const { freePort } = require('./ports');

/** Imports credentials (plain `data`; n8n encrypts it on import) through a JSON file in `workDir`. */
async function importCredentials(userFolder, workDir, credentials) {
	const file = path.join(workDir, 'credentials.json');
	fs.writeFileSync(file, JSON.stringify(credentials));
	await n8nCli(userFolder, ['import:credentials', `--input=${file}`]);
}

/** Imports workflows, one JSON file each in `dir` (created, or added to). */
async function importWorkflows(userFolder, dir, workflows) {
	fs.mkdirSync(dir, { recursive: true });
	// n8n 2.0.x (a compatibility run) refuses a workflow without a versionId; later versions make one up.
	for (const workflow of workflows)
		fs.writeFileSync(
			path.join(dir, `${workflow.id}.json`),
			JSON.stringify({ versionId: crypto.randomUUID(), ...workflow }),
		);
	await n8nCli(userFolder, ['import:workflow', '--separate', `--input=${dir}`]);
}

function n8nEnv(userFolder, extra = {}) {
	return {
		...process.env,
		N8N_USER_FOLDER: userFolder,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		SKIP_STATISTICS_EVENTS: 'true',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_LOG_LEVEL: 'warn',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		// Modules that call n8n's own cloud services (unreachable here) or are not needed to run community nodes.
		N8N_DISABLED_MODULES: knownModules(
			'mcp-registry,insights,chat-hub,workflow-builder,instance-ai,agents,agent-evals,promotions,quick-connect,instance-registry,instance-reporting',
		),
		...extra,
	};
}

/**
 * The modules of a list that the installed n8n has: n8n refuses to start when N8N_DISABLED_MODULES names one
 * it does not know (UnknownModuleError), and older versions (the compatibility runs) know fewer.
 */
function knownModules(list) {
	const config = path.join(
		RUNTIME_DIR,
		'node_modules',
		'@n8n',
		'backend-common',
		'dist',
		'modules',
		'modules.config.js',
	);
	const names = fs.existsSync(config)
		? /MODULE_NAMES = \[([^\]]*)\]/.exec(fs.readFileSync(config, 'utf8'))?.[1]
		: undefined;
	if (names === undefined) return list;
	const known = new Set([...names.matchAll(/'([^']+)'/g)].map((m) => m[1]));
	return list
		.split(',')
		.filter((name) => known.has(name))
		.join(',');
}

/** Runs an n8n CLI command to completion; returns stdout. */
async function n8nCli(userFolder, args, { env = {}, timeoutMs = 120_000, onSpawn } = {}) {
	const brokerPort = await freePort();
	return await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [N8N_BIN, ...args], {
			env: n8nEnv(userFolder, { N8N_RUNNERS_BROKER_PORT: String(brokerPort), ...env }),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		onSpawn?.(child);
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d) => (stdout += d));
		child.stderr.on('data', (d) => (stderr += d));
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(
				new Error(
					`n8n ${args[0]} did not finish in ${timeoutMs / 1000} s:\n${tail(stdout + stderr)}`,
				),
			);
		}, timeoutMs);
		child.on('exit', (code, signal) => {
			clearTimeout(timer);
			if (code === 0) resolve(stdout);
			else {
				const ended = code === null ? `was ended by ${signal}` : `exited with ${code}`;
				reject(
					Object.assign(new Error(`n8n ${args.join(' ')} ${ended}:\n${tail(stdout + stderr)}`), {
						stdout,
						stderr,
					}),
				);
			}
		});
	});
}

/**
 * Publishes (activates) a workflow: `n8n publish:workflow`, or on n8n versions without it (1.x, for the
 * compatibility runs) `n8n update:workflow --active=true`, which they use instead.
 */
async function publishWorkflow(userFolder, id, options) {
	const hasPublish = fs.existsSync(
		path.join(path.dirname(path.dirname(N8N_BIN)), 'dist', 'commands', 'publish', 'workflow.js'),
	);
	// Only the suites' SQLite databases need it (2.0.x); queue mode's Postgres is on n8n versions that write it.
	const sqlite = (options?.env?.DB_TYPE ?? process.env.DB_TYPE ?? 'sqlite') === 'sqlite';
	if (hasPublish && sqlite) await recordImportedVersion(userFolder, id);
	const args = hasPublish
		? ['publish:workflow', `--id=${id}`]
		: ['update:workflow', `--id=${id}`, '--active=true'];
	return await n8nCli(userFolder, args, options);
}

/**
 * The workflow's current version as a workflow_history row, where `n8n import:workflow` wrote none: n8n 2.0.x
 * imports only the workflow row, and its publish:workflow publishes a version from workflow_history ("Version
 * … not found"). Later versions write the row on import (the same columns, authors "import"); then this adds nothing.
 */
async function recordImportedVersion(userFolder, workflowId) {
	await withDatabase(userFolder, 'readwrite', (db) =>
		db('run', [
			`INSERT INTO workflow_history (versionId, workflowId, authors, nodes, connections, createdAt, updatedAt)
			 SELECT w.versionId, w.id, 'import', w.nodes, w.connections, w.createdAt, w.updatedAt
			 FROM workflow_entity w
			 WHERE w.id = ? AND NOT EXISTS (SELECT 1 FROM workflow_history h WHERE h.versionId = w.versionId)`,
			[workflowId],
		]),
	);
}

/** `n8n execute --id=… --rawOutput`: the run's JSON (n8n prints log lines before it). */
async function executeWorkflow(userFolder, id, options) {
	// n8n prints the run's JSON through its logger at level info.
	const stdout = await n8nCli(userFolder, ['execute', `--id=${id}`, '--rawOutput'], {
		...options,
		env: { N8N_LOG_LEVEL: 'info', ...options?.env },
	}).catch((error) => {
		error.runData = parseRunJson(error.stdout ?? '');
		throw error;
	});
	const run = parseRunJson(stdout);
	if (!run) throw new Error(`n8n execute printed no run data:\n${tail(stdout, 40)}`);
	return run;
}

function parseRunJson(stdout) {
	const start = stdout.indexOf('{\n');
	const end = stdout.lastIndexOf('\n}');
	if (start === -1 || end < start) return undefined;
	try {
		return JSON.parse(stdout.slice(start, end + 2));
	} catch {
		return undefined;
	}
}

/**
 * Starts `n8n start` and resolves once its editor answers; rejects with n8n's last log lines, not a
 * hang, when it exits or does not come up in time. `stop()` ends it and everything it started.
 */
async function startN8n(userFolder, { port, env = {}, timeoutMs = 180_000, onOutput } = {}) {
	const editorPort = port ?? (await freePort());
	const brokerPort = await freePort();
	const child = spawn(process.execPath, [N8N_BIN, 'start'], {
		env: n8nEnv(userFolder, {
			N8N_PORT: String(editorPort),
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			...env,
		}),
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	let output = '';
	const collect = (d) => {
		output += d;
		onOutput?.(String(d));
	};
	child.stdout.on('data', collect);
	child.stderr.on('data', collect);
	const url = `http://127.0.0.1:${editorPort}`;
	const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
	/** SIGTERM, SIGKILL after 10 s; resolves with how long it took and whether n8n had to be killed. */
	const stop = async () => {
		const began = Date.now();
		let killed = false;
		if (child.exitCode !== null) return { ms: 0, killed };
		try {
			process.kill(-child.pid, 'SIGTERM');
		} catch {
			return { ms: 0, killed };
		}
		const timer = setTimeout(() => {
			killed = true;
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				// already gone
			}
		}, 10_000);
		await exited;
		clearTimeout(timer);
		return { ms: Date.now() - began, killed };
	};
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (child.exitCode !== null)
			throw new Error(
				`n8n exited (code ${child.exitCode}) before its editor came up:\n${tail(output)}`,
			);
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n did not come up within ${timeoutMs / 1000} s:\n${tail(output)}`);
		}
		try {
			// n8n 1.x answers readiness once its database is migrated, before its REST routes exist (404):
			// the editor's settings route answers only once they do.
			const ready = await fetch(`${url}/healthz/readiness`);
			if (ready.ok && (await fetch(`${url}/rest/settings`)).ok) break;
		} catch {
			// not listening yet
		}
		await new Promise((r) => setTimeout(r, 500));
	}
	return { url, port: editorPort, child, stop, output: () => output };
}

/** The REST API as the editor uses it: an owner account, then its session cookie. */
async function ownerSession(url) {
	const owner = {
		email: 'owner@example.com',
		firstName: 'Demo',
		lastName: 'Owner',
		password: 'Messaging-demo-1',
	};
	let response = await fetch(`${url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(owner),
	});
	if (!response.ok) {
		response = await fetch(`${url}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
		});
	}
	if (!response.ok)
		throw new Error(`Could not sign in to n8n: ${response.status} ${await response.text()}`);
	const cookie = response.headers
		.getSetCookie()
		.map((c) => c.split(';')[0])
		.join('; ');
	const rest = async (method, route, body) => {
		const res = await fetch(`${url}/rest${route}`, {
			method,
			headers: { cookie, 'content-type': 'application/json', 'browser-id': 'e2e' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = text;
		}
		return { status: res.status, body: json };
	};
	/** Execution id -> its start (ms) as n8n recorded it, for one workflow; n8n answers at most 100 a page. */
	const executionStarts = async (workflowId) => {
		const starts = new Map();
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		for (let lastId; ; ) {
			const more = lastId ? `&lastId=${lastId}` : '';
			const answer = await rest('GET', `/executions?filter=${filter}&limit=100${more}`);
			const results = answer.body?.data?.results ?? [];
			for (const e of results) starts.set(String(e.id), Date.parse(e.startedAt));
			if (results.length < 100) return starts;
			lastId = results.at(-1).id;
		}
	};
	return { cookie, owner, rest, executionStarts };
}

/**
 * The executions n8n saved for a workflow (`id`, `status`), read from its SQLite database with n8n's own
 * driver: the same on every n8n version, where the REST API's listing changed shape.
 */
async function savedExecutions(userFolder, workflowId) {
	return await withDatabase(userFolder, 'readonly', (db) =>
		db('all', [
			'SELECT id, status FROM execution_entity WHERE workflowId = ? ORDER BY id',
			[workflowId],
		]),
	);
}

/** Runs `use(db)` on the user folder's n8n SQLite database; `db(method, [sql, params])` promisifies the driver. */
async function withDatabase(userFolder, mode, use) {
	const sqlite3 = require(path.join(RUNTIME_DIR, 'node_modules', 'sqlite3'));
	const file = path.join(userFolder, '.n8n', 'database.sqlite');
	const flags = mode === 'readonly' ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE;
	const handle = await new Promise((resolve, reject) => {
		const opened = new sqlite3.Database(file, flags, (error) =>
			error ? reject(error) : resolve(opened),
		);
	});
	const db = (method, [sql, params]) =>
		new Promise((resolve, reject) =>
			handle[method](sql, params, function (error, rows) {
				if (error) reject(error);
				else resolve(rows ?? this);
			}),
		);
	try {
		return await use(db);
	} finally {
		handle.close();
	}
}

/**
 * An end-to-end suite's start: the pinned n8n installed, the package built, and a fresh work folder with an
 * n8n user folder in it (`prefix` names the folder under the system's temporary one).
 */
function prepareSuite(prefix) {
	ensureN8n();
	execFileSync(process.execPath, [path.join(ROOT, 'node_modules/gulp/bin/gulp.js'), 'build'], {
		cwd: ROOT,
		stdio: 'ignore',
	});
	const work = fs.mkdtempSync(path.join(require('node:os').tmpdir(), prefix));
	const user = path.join(work, 'user');
	fs.mkdirSync(user, { recursive: true });
	return { work, user };
}

module.exports = {
	prepareSuite,
	n8nEnv,
	publishWorkflow,
	ROOT,
	PACKAGE_NAME,
	ensureN8n,
	packPackage,
	installPackage,
	installFolderPackage,
	n8nCli,
	executeWorkflow,
	importCredentials,
	importWorkflows,
	startN8n,
	ownerSession,
	savedExecutions,
	freePort,
	log,
};
