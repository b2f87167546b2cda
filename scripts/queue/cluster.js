'use strict';
/**
 * n8n in queue mode: one `n8n start` (the main: webhooks, triggers, enqueues) and `n8n worker`
 * processes, each with its own user folder (holding its own copy of the installed package), its own
 * ports, and a log file; restartable gracefully (SIGTERM) or killed (SIGKILL) like a crash or OOM kill.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { n8nEnv } = require('../lib/n8n');
const { freePort, onCleanup } = require('../lib/services');

const N8N_BIN = path.join(
	__dirname,
	'..',
	'..',
	'.n8n-runtime',
	'node_modules',
	'n8n',
	'bin',
	'n8n',
);
const ANSI = /\x1b\[[0-9;]*m/g;
const tail = (text, lines = 25) => text.trim().split('\n').slice(-lines).join('\n');

/** What every process of the cluster shares: queue mode, Redis, Postgres, one encryption key. */
function queueEnv({ redis, postgres, encryptionKey, extra = {} }) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
		N8N_ENCRYPTION_KEY: encryptionKey,
		...extra,
	};
}

/** The headless settings the other suites use (scripts/lib/n8n.js), plus info-level logs to read. */
function baseEnv(userFolder) {
	return n8nEnv(userFolder, { N8N_LOG_LEVEL: 'info', N8N_LOG_OUTPUT: 'console', NO_COLOR: '1' });
}

class N8nProcess {
	/**
	 * @param {object} options
	 * @param {string} options.name e.g. "main", "worker-1"
	 * @param {'start'|'worker'} options.command
	 */
	constructor({ name, command, userFolder, env, logFile, args = [] }) {
		Object.assign(this, { name, command, userFolder, env, logFile, args });
		this.child = undefined;
		this.output = '';
		this.listeners = new Set();
		this.starts = 0;
		onCleanup(() => this.kill());
	}

	get running() {
		return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
	}

	/** Calls `fn(line)` for every log line from now on; returns a function that stops it. */
	onLine(fn) {
		this.listeners.add(fn);
		return () => this.listeners.delete(fn);
	}

	/** Waits for a log line matching `pattern` (from now on); rejects after `timeoutMs`. */
	waitForLine(pattern, timeoutMs) {
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				off();
				reject(
					new Error(
						`${this.name}: no log line matching ${pattern} within ${timeoutMs / 1000} s:\n${this.lastLines()}`,
					),
				);
			}, timeoutMs);
			const off = this.onLine((line) => {
				const match = pattern.exec(line);
				if (match) {
					clearTimeout(timer);
					off();
					resolve(match);
				}
			});
		});
	}

	lastLines(lines = 25) {
		return tail(this.output, lines) || '(no output)';
	}

	async start({ timeoutMs = 240_000 } = {}) {
		if (this.running) throw new Error(`${this.name} is running already`);
		this.starts += 1;
		const brokerPort = await freePort();
		const httpPort = await freePort();
		const ports =
			this.command === 'start'
				? { N8N_PORT: String(httpPort) }
				: {
						QUEUE_HEALTH_CHECK_ACTIVE: 'true',
						QUEUE_HEALTH_CHECK_PORT: String(httpPort),
					};
		this.url = `http://127.0.0.1:${httpPort}`;
		this.output = '';
		fs.appendFileSync(
			this.logFile,
			`\n===== ${this.name} start #${this.starts} at ${new Date().toISOString()} =====\n`,
		);
		const child = spawn(process.execPath, [N8N_BIN, this.command, ...this.args], {
			env: {
				...baseEnv(this.userFolder),
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				...ports,
				...this.env,
			},
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		this.child = child;
		this.exited = new Promise((resolve) =>
			child.once('exit', (code, signal) => resolve(code ?? signal)),
		);
		let partial = '';
		const collect = (chunk) => {
			const text = String(chunk).replace(ANSI, '');
			fs.appendFileSync(this.logFile, text);
			this.output = (this.output + text).slice(-200_000);
			const lines = (partial + text).split('\n');
			partial = lines.pop();
			for (const line of lines) for (const fn of [...this.listeners]) fn(line);
		};
		child.stdout.on('data', collect);
		child.stderr.on('data', collect);

		const deadline = Date.now() + timeoutMs;
		for (;;) {
			if (!this.running) {
				throw new Error(
					`${this.name} (n8n ${this.command}) exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${this.lastLines()}`,
				);
			}
			if (Date.now() > deadline) {
				await this.kill();
				throw new Error(
					`${this.name} (n8n ${this.command}) was not ready within ${timeoutMs / 1000} s:\n${this.lastLines()}`,
				);
			}
			try {
				const response = await fetch(`${this.url}/healthz/readiness`, {
					signal: AbortSignal.timeout(2000),
				});
				if (response.ok) return this;
			} catch {
				// not listening yet
			}
			await new Promise((r) => setTimeout(r, 300));
		}
	}

	signalGroup(signal) {
		try {
			process.kill(-this.child.pid, signal);
		} catch {
			// already gone
		}
	}

	/** Graceful stop: SIGTERM to n8n itself (as `docker stop` does), then whatever it left behind. */
	async terminate({ timeoutMs = 60_000 } = {}) {
		if (!this.running) return;
		this.child.kill('SIGTERM');
		const timer = setTimeout(() => this.signalGroup('SIGKILL'), timeoutMs);
		await this.exited;
		clearTimeout(timer);
		this.signalGroup('SIGKILL'); // a task runner it may have left
	}

	/** A crash: SIGKILL to n8n and its task runner at once. */
	async kill() {
		if (!this.child) return;
		this.signalGroup('SIGKILL');
		await this.exited;
	}
}

/** The executions a worker started and finished, from its log lines. */
function workerExecutions(worker) {
	const started = new Map();
	return {
		started,
		finished: new Set(),
		listen() {
			worker.onLine((line) => {
				const begin = /Worker started execution (\d+)/.exec(line);
				if (begin) started.set(begin[1], Date.now());
				const end = /Worker finished execution (\d+)/.exec(line);
				if (end) this.finished.add(end[1]);
			});
			return this;
		},
	};
}

/** What a worker said about the package: load errors, unknown node types. */
function packageProblems(processes) {
	const problems = [];
	for (const p of processes) {
		const text = fs.existsSync(p.logFile) ? fs.readFileSync(p.logFile, 'utf8') : '';
		const all = text.split('\n');
		const lines = [];
		all.forEach((line, i) => {
			if (
				/Unrecognized node type|n8n-nodes-messaging/i.test(line) &&
				/error|fail|unrecognized|cannot|could not/i.test(line)
			) {
				// n8n prints the loader's own message on the line after "Failed to load package".
				lines.push(
					/Failed to load package/.test(line) && all[i + 1]
						? `${line.trim()}: ${all[i + 1].trim()}`
						: line.trim(),
				);
			}
		});
		if (lines.length > 0)
			problems.push(
				`${p.name} (${p.userFolder}): ${[...new Set(lines)].slice(0, 4).join('\n    ')}`,
			);
	}
	return problems;
}

module.exports = { N8nProcess, queueEnv, baseEnv, N8N_BIN, workerExecutions, packageProblems };
