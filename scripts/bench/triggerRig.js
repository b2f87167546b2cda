'use strict';
/**
 * The rig of the trigger benches (soak.js): a real n8n (regular, or queue mode with Redis, Postgres, the
 * main and two workers), the sandbox the triggers watch, and a second sandbox without faults where each
 * execution logs what it received: one log message per execution, so the log costs one request per
 * execution and the figures are the trigger's, not the logging's.
 */
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');
const n8n = require('../lib/n8n');
const services = require('../lib/services');
const { N8nProcess, queueEnv } = require('../queue/cluster');
const { createSandbox } = require('../../sandbox/server');
const wf = require('../../test/e2e/workflows');
const { chainWorkflow } = require('../lib/workflows');
const { percentile } = require('../lib/percentile');

const TOKEN = 'trigger-load-token-3f1d';
/** The deliveries are logged into a second service without faults: a failed log is no lost message. */
const LOG_CREDENTIAL = { id: 'loadLogCred00001', name: 'Messaging (delivery log)' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Version 2 every `intervalS` on one conversation, each execution holding `holdS` (the soak: so that a
 * SIGKILL finds deliveries in flight), then one log message with the ids it received (`!`: redelivered).
 */
function triggerWorkflow(id, inboxId, logId, { intervalS, holdS }) {
	const [trigger, log] = wf.triggerToLog(inboxId, logId).nodes;
	return chainWorkflow({
		id,
		name: `Load ${id}`,
		nodes: [
			{
				...trigger,
				typeVersion: 2,
				parameters: {
					interval: intervalS,
					unit: 'seconds',
					conversationId: { __rl: true, mode: 'id', value: inboxId },
					options: {},
				},
			},
			...(holdS > 0 ? [hold(holdS)] : []),
			{
				...log,
				position: [440, 0],
				executeOnce: true,
				credentials: { messagingApi: LOG_CREDENTIAL },
				parameters: {
					...log.parameters,
					skipIfAlreadySent: 'never',
					text: "=seen x{{ $execution.id }} {{ $input.all().map(i => i.json.id + (i.json.redelivery === true ? '!' : '')).join(' ') }}",
				},
			},
		],
	});
}

function hold(seconds) {
	return {
		id: 'hold',
		name: 'Hold',
		type: 'n8n-nodes-base.wait',
		typeVersion: 1.1,
		parameters: { amount: seconds, unit: 'seconds' },
		webhookId: crypto.randomUUID(),
	};
}

/** Deliveries recorded in a log conversation: message id -> [{ execution, redelivery }]. */
function seenIn(store, logId) {
	const seen = new Map();
	for (const m of store.listMessages({ conversation_id: logId })) {
		const [word, execution, ...ids] = String(m.message).split(' ');
		if (word !== 'seen' || !execution?.startsWith('x')) continue;
		for (const raw of ids) {
			const id = raw.replace(/!$/, '');
			if (!seen.has(id)) seen.set(id, []);
			seen.get(id).push({ execution: execution.slice(1), redelivery: raw.endsWith('!') });
		}
	}
	return seen;
}

function rssMb(pid) {
	try {
		return Math.round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])) / 1024);
	} catch {
		return NaN;
	}
}

/** Queue mode: Redis, Postgres and the processes; `start()` starts whichever is not running. */
async function queueCluster(work) {
	services.ensureServicePackages();
	const [redis, postgres] = await Promise.all([services.startRedis(), services.startPostgres()]);
	const env = queueEnv({ redis, postgres, encryptionKey: crypto.randomBytes(24).toString('hex') });
	fs.mkdirSync(path.join(work, 'logs'), { recursive: true });
	const proc = (name, command) =>
		new N8nProcess({
			name,
			command,
			userFolder: path.join(work, name),
			env,
			logFile: path.join(work, 'logs', `${name}.log`),
		});
	const main = proc('main', 'start');
	const all = [main, proc('worker-1', 'worker'), proc('worker-2', 'worker')];
	return {
		env,
		main,
		folders: all.map((p) => p.userFolder),
		async start() {
			await Promise.all(all.filter((p) => !p.running).map((p) => p.start()));
			return { url: main.url, child: main.child, stop: () => main.terminate() };
		},
		async stop() {
			for (const p of all) await p.terminate({ timeoutMs: 20_000 }).catch(() => {});
			await services.cleanup();
		},
	};
}

/**
 * Starts the rig in `work` with `count` trigger workflows (one conversation each), published, n8n up.
 * `queue`: queue mode; `holdS`: how long each execution waits before it logs. Everything it started ends with `stop()`.
 */
async function startRig({ work, queue = false, count = 1, intervalS = 5, holdS = 0 }) {
	n8n.ensureN8n();
	fs.rmSync(work, { recursive: true, force: true });
	const user = path.join(work, 'user');
	fs.mkdirSync(user, { recursive: true });
	const cluster = queue ? await queueCluster(work) : undefined;
	const mainFolder = cluster ? cluster.main.userFolder : user;
	const cli = cluster ? { env: cluster.env, timeoutMs: 300_000 } : undefined;
	const sandboxOf = () =>
		createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: 'demo', recordRequests: false }).start();
	const sandbox = await sandboxOf();
	const logService = await sandboxOf();
	const triggers = [];
	for (let i = 0; i < count; i++) {
		const inbox = sandbox.store.createConversation({ contact_id: 'ct_ann' }).id;
		const log = logService.store.createConversation({ contact_id: 'ct_bob' }).id;
		const id = `load${String(i).padStart(3, '0')}00000000`.slice(0, 16);
		triggers.push({ id, inbox, log, created: new Map() });
	}
	const { tarball } = n8n.packPackage(work);
	for (const folder of cluster?.folders ?? [user]) n8n.installPackage(folder, tarball);
	const credentialsFile = path.join(work, 'credentials.json');
	const logCredential = { ...wf.credential(`${logService.url}/`, TOKEN), ...LOG_CREDENTIAL };
	fs.writeFileSync(
		credentialsFile,
		JSON.stringify([wf.credential(`${sandbox.url}/`, TOKEN), logCredential]),
	);
	await n8n.n8nCli(mainFolder, ['import:credentials', `--input=${credentialsFile}`], cli);
	const dir = path.join(work, 'workflows');
	fs.mkdirSync(dir);
	for (const t of triggers)
		fs.writeFileSync(
			path.join(dir, `${t.id}.json`),
			JSON.stringify(triggerWorkflow(t.id, t.inbox, t.log, { intervalS, holdS })),
		);
	await n8n.n8nCli(mainFolder, ['import:workflow', '--separate', `--input=${dir}`], cli);
	for (const t of triggers) await n8n.publishWorkflow(mainFolder, t.id, cli);

	fs.mkdirSync(path.join(work, 'logs'), { recursive: true });
	const logFile = path.join(work, 'logs', 'main.log');
	const onOutput = (text) => fs.appendFileSync(logFile, text);
	const startApp = async () =>
		cluster ? await cluster.start() : await n8n.startN8n(user, { onOutput });
	const rig = {
		sandbox,
		logService,
		triggers,
		intervalS,
		mode: queue ? 'queue mode: the main and 2 workers' : 'regular mode',
		app: await startApp(),
		session: undefined,
		/** A graceful restart of n8n (the main in queue mode), or with `kill` a SIGKILL of its process group. */
		async restart({ kill = false } = {}) {
			if (kill) {
				try {
					process.kill(-rig.app.child.pid, 'SIGKILL');
				} catch {
					// already gone
				}
				await new Promise((resolve) => {
					if (rig.app.child.exitCode !== null || rig.app.child.signalCode !== null) resolve();
					else rig.app.child.once('exit', resolve);
				});
			} else await rig.app.stop();
			rig.app = await startApp();
			rig.session = await n8n.ownerSession(rig.app.url);
		},
		rss: () => rssMb(rig.app.child.pid),
		/** The stored static data of a trigger's workflow, in bytes. */
		async stateBytes(trigger) {
			const stored = await rig.session.rest('GET', `/workflows/${trigger.id}`);
			return JSON.stringify(stored.body?.data?.staticData ?? {}).length;
		},
		create(trigger, text) {
			const message = sandbox.store.sendMessage('ct_ann', {
				conversation_id: trigger.inbox,
				message: text,
			});
			trigger.created.set(message.id, Date.now());
			return message.id;
		},
		/** Creates `rate` messages a second for `seconds` into each of `targets`, evenly spaced. */
		async produce(targets, rate, seconds, label, stop = () => false) {
			const ids = new Map(targets.map((t) => [t, []]));
			const begin = Date.now();
			const total = Math.round(rate * seconds);
			for (let n = 0; n < total && !stop(); n++) {
				const wait = begin + (n * 1000) / rate - Date.now();
				if (wait > 0) await sleep(wait);
				for (const t of targets) ids.get(t).push(rig.create(t, `${label} ${n}`));
			}
			return ids;
		},
		seen: (trigger) => seenIn(logService.store, trigger.log),
		/** Waits until every id of `ids` was delivered, at most `timeoutMs`. */
		async drained(trigger, ids, timeoutMs = 120_000) {
			const deadline = Date.now() + timeoutMs;
			while (Date.now() < deadline) {
				const seen = rig.seen(trigger);
				if (ids.every((id) => seen.has(id))) return true;
				await sleep(1000);
			}
			return false;
		},
		/** From each message's creation to the start of the first execution that received it, sorted. */
		async latencies(trigger, ids) {
			const seen = rig.seen(trigger);
			const starts = await rig.session.executionStarts(trigger.id);
			return ids
				.filter((id) => seen.has(id) && starts.has(seen.get(id)[0].execution))
				.map((id) => starts.get(seen.get(id)[0].execution) - trigger.created.get(id))
				.sort((a, b) => a - b);
		},
		async stop() {
			await rig.app?.stop();
			await cluster?.stop();
			await sandbox.stop();
			await logService.stop();
		},
	};
	rig.session = await n8n.ownerSession(rig.app.url);
	await sleep(10_000);
	return rig;
}

module.exports = { startRig, sleep, TOKEN };
