#!/usr/bin/env node
'use strict';
/**
 * The Messaging Trigger (version 2, every 5 s) under sustained load in a real `n8n start`, against the
 * sandbox. Prints Markdown tables for BENCHMARKS.md.
 * 1. ramp: messages created at a steady rate, one rate after the other; per rate the p50/p95 latency
 *    from a message's creation to the start of the execution that receives it (n8n's startedAt), and
 *    whether p95 stays within interval + 2 s.
 * 2. soak: half of the highest rate kept, with 429/5xx/dropped connections injected at the service and a
 *    graceful restart of n8n every `--restart-every` seconds; the n8n main's memory and the trigger's
 *    stored state sampled over time; lost and unmarked duplicates counted.
 * 3. fanout: `--fanout` trigger workflows on one token at 5 s against a rate-limited service: the share
 *    of 429 answers and each trigger's p95 latency.
 * `--queue`: n8n in queue mode (Redis, Postgres, the main and two workers at n8n's default concurrency,
 * scripts/queue/cluster.js); the trigger runs on the main, its executions on the workers; a restart
 * restarts the main.
 *
 *   flock /work/heavy.lock bash scripts/toolchain.sh node scripts/bench/triggerLoad.js \
 *     [--rates 2,5,10,20] [--step 40] [--soak 180] [--soak-rate N] [--restart-every 60] [--fanout 20]
 *     [--only ramp,soak,fanout] [--queue]
 * Without --soak-rate the soak runs at half the highest rate the ramp kept (1/s without a ramp).
 */
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');
const n8n = require('../lib/n8n');
const services = require('../lib/services');
const { N8nProcess, queueEnv } = require('../queue/cluster');
const { buildPackage } = require('../lib/build');
const { createSandbox } = require('../../sandbox/server');
const wf = require('../../test/e2e/workflows');

const args = Object.fromEntries(
	process.argv
		.slice(2)
		.join(' ')
		.split('--')
		.filter(Boolean)
		.map((a) => a.trim().split(/\s+/)),
);
const RATES = String(args.rates ?? '2,5,10,20')
	.split(',')
	.map(Number);
const STEP_S = Number(args.step ?? 40);
const SOAK_S = Number(args.soak ?? 180);
const RESTART_EVERY_S = Number(args['restart-every'] ?? 60);
const SOAK_RATE = args['soak-rate'] ? Number(args['soak-rate']) : undefined;
const FANOUT = Number(args.fanout ?? 20);
const ONLY = args.only ? String(args.only).split(',') : ['ramp', 'soak', 'fanout'];
const QUEUE = 'queue' in args;
const INTERVAL_S = 5;
const WORK = path.join(n8n.ROOT, '.bench', 'trigger-load');
const USER = path.join(WORK, 'user');
const TOKEN = 'trigger-load-token-3f1d';
/** The deliveries are logged into a second service without faults: a failed log is no lost message. */
const LOG_CREDENTIAL = { id: 'loadLogCred00001', name: 'Messaging (delivery log)' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted, p) =>
	sorted.length === 0
		? NaN
		: sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const s = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '-');

function triggerWorkflow(id, inboxId, logId) {
	const workflow = wf.triggerToLog(inboxId, logId);
	workflow.id = id;
	workflow.name = `Load ${id}`;
	workflow.nodes[0] = {
		...workflow.nodes[0],
		typeVersion: 2,
		parameters: {
			interval: INTERVAL_S,
			unit: 'seconds',
			conversationId: { __rl: true, mode: 'id', value: inboxId },
			options: {},
		},
	};
	workflow.nodes[1].parameters.text =
		'=seen {{ $json.id }} x{{ $execution.id }} r{{ $json.redelivery === true }}';
	workflow.nodes[1].parameters.skipIfAlreadySent = 'never';
	workflow.nodes[1].credentials = { messagingApi: LOG_CREDENTIAL };
	return workflow;
}

/** Deliveries recorded in a log conversation: message id -> [{ execution, redelivery }]. */
function seenIn(store, logId) {
	const seen = new Map();
	for (const m of store.listMessages({ conversation_id: logId })) {
		const match = /^seen (\S+) x(\S+) r(true|false)$/.exec(m.message);
		if (!match) continue;
		if (!seen.has(match[1])) seen.set(match[1], []);
		seen.get(match[1]).push({ execution: match[2], redelivery: match[3] === 'true' });
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

/**
 * Queue mode: Redis, Postgres and the processes (not started yet), each with its own user folder.
 * `start()` starts whichever is not running; the app it returns is the main.
 */
async function queueCluster() {
	services.ensureServicePackages();
	const [redis, postgres] = await Promise.all([services.startRedis(), services.startPostgres()]);
	const env = queueEnv({ redis, postgres, encryptionKey: crypto.randomBytes(24).toString('hex') });
	fs.mkdirSync(path.join(WORK, 'logs'), { recursive: true });
	const proc = (name, command) =>
		new N8nProcess({
			name,
			command,
			userFolder: path.join(WORK, name),
			env,
			logFile: path.join(WORK, 'logs', `${name}.log`),
		});
	const main = proc('main', 'start');
	const workers = [proc('worker-1', 'worker'), proc('worker-2', 'worker')];
	const all = [main, ...workers];
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

async function main() {
	n8n.ensureN8n();
	buildPackage();
	fs.rmSync(WORK, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });
	const cluster = QUEUE ? await queueCluster() : undefined;
	const mainFolder = cluster ? cluster.main.userFolder : USER;
	const cli = cluster ? { env: cluster.env, timeoutMs: 300_000 } : undefined;
	const startApp = async () => (cluster ? await cluster.start() : await n8n.startN8n(USER));
	const sandbox = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: 'demo',
		recordRequests: false,
	}).start();
	const { store } = sandbox;
	const logService = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: 'demo',
		recordRequests: false,
	}).start();
	const logStore = logService.store;
	const triggers = [];
	const count = ONLY.includes('fanout') ? Math.max(1, FANOUT) : 1;
	for (let i = 0; i < count; i++) {
		const inbox = store.createConversation({ contact_id: 'ct_ann' }).id;
		const log = logStore.createConversation({ contact_id: 'ct_bob' }).id;
		const id = `load${String(i).padStart(3, '0')}00000000`.slice(0, 16);
		triggers.push({
			id,
			inbox,
			log,
			created: new Map(),
			workflow: triggerWorkflow(id, inbox, log),
		});
	}
	let app;
	let session;
	const startedAtOf = async (trigger) => {
		const starts = new Map();
		const filter = encodeURIComponent(JSON.stringify({ workflowId: trigger.id }));
		let lastId;
		for (let page = 0; page < 50; page++) {
			const more = lastId ? `&lastId=${lastId}` : '';
			const response = await session.rest('GET', `/executions?filter=${filter}&limit=500${more}`);
			const results = response.body?.data?.results ?? [];
			for (const e of results) starts.set(String(e.id), Date.parse(e.startedAt));
			if (results.length < 500) break;
			lastId = results.at(-1).id;
		}
		return starts;
	};
	const latencies = async (trigger, ids) => {
		const seen = seenIn(logStore, trigger.log);
		const starts = await startedAtOf(trigger);
		return ids
			.filter((id) => seen.has(id) && starts.has(seen.get(id)[0].execution))
			.map((id) => starts.get(seen.get(id)[0].execution) - trigger.created.get(id))
			.sort((a, b) => a - b);
	};
	const create = (trigger, text) => {
		const message = store.sendMessage('ct_ann', { conversation_id: trigger.inbox, message: text });
		trigger.created.set(message.id, Date.now());
		return message.id;
	};
	/** Creates `rate` messages a second for `seconds` into `targets`, evenly spaced. */
	const produce = async (targets, rate, seconds, label) => {
		const ids = new Map(targets.map((t) => [t, []]));
		const begin = Date.now();
		const total = Math.round(rate * seconds);
		for (let n = 0; n < total; n++) {
			const wait = begin + (n * 1000) / rate - Date.now();
			if (wait > 0) await sleep(wait);
			for (const t of targets) ids.get(t).push(create(t, `${label} ${n}`));
		}
		return ids;
	};
	const drained = async (trigger, ids, timeoutMs = 120_000) => {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			const seen = seenIn(logStore, trigger.log);
			if (ids.every((id) => seen.has(id))) return;
			await sleep(1000);
		}
	};

	try {
		const { tarball } = n8n.packPackage(WORK);
		for (const folder of cluster?.folders ?? [USER]) n8n.installPackage(folder, tarball);
		const credentialsFile = path.join(WORK, 'credentials.json');
		const logCredential = { ...wf.credential(`${logService.url}/`, TOKEN), ...LOG_CREDENTIAL };
		fs.writeFileSync(
			credentialsFile,
			JSON.stringify([wf.credential(`${sandbox.url}/`, TOKEN), logCredential]),
		);
		await n8n.n8nCli(mainFolder, ['import:credentials', `--input=${credentialsFile}`], cli);
		const dir = path.join(WORK, 'workflows');
		fs.mkdirSync(dir);
		const active = ONLY.includes('fanout') && ONLY.length === 1 ? triggers : triggers.slice(0, 1);
		for (const t of triggers)
			fs.writeFileSync(path.join(dir, `${t.id}.json`), JSON.stringify(t.workflow));
		await n8n.n8nCli(mainFolder, ['import:workflow', '--separate', `--input=${dir}`], cli);
		for (const t of active) await n8n.publishWorkflow(mainFolder, t.id, cli);
		app = await startApp();
		session = await n8n.ownerSession(app.url);
		await sleep(10_000);
		const [one] = triggers;
		console.log(
			`trigger load: n8n on ${app.url}${cluster ? ' (queue mode: main and 2 workers)' : ''}, ${new Date().toISOString()}`,
		);

		let highest = 0;
		if (ONLY.includes('ramp')) {
			console.log(
				`\n| Rate (messages/s) | Messages | Delivered | p50 | p95 | p95 <= ${INTERVAL_S + 2} s | n8n main RSS |`,
			);
			console.log('|---:|---:|---:|---:|---:|:---:|---:|');
			for (const rate of RATES) {
				const ids = (await produce([one], rate, STEP_S, `ramp ${rate}`)).get(one);
				await drained(one, ids);
				const l = await latencies(one, ids);
				const ok = percentile(l, 95) <= (INTERVAL_S + 2) * 1000 && l.length === ids.length;
				if (ok) highest = rate;
				console.log(
					`| ${rate} | ${ids.length} | ${l.length} | ${s(percentile(l, 50))} | ${s(percentile(l, 95))} | ${ok ? 'yes' : 'no'} | ${rssMb(app.child.pid)} MB |`,
				);
				if (!ok) break;
			}
			console.log(
				`\ntrigger load: highest sustained rate kept within interval + 2 s: ${highest}/s`,
			);
		}

		if (ONLY.includes('soak')) {
			const rate = SOAK_RATE ?? Math.max(1, highest / 2 || 1);
			sandbox.set({
				faults: { rate429: 0.05, rate503: 0.03, rate500: 0.01, rateDrop: 0.03, seed: 7 },
			});
			console.log(
				`\ntrigger load: soak ${SOAK_S} s at ${rate}/s with faults, a graceful restart every ${RESTART_EVERY_S} s`,
			);
			console.log('\n| t | n8n main RSS | stored trigger state | delivered so far |');
			console.log('|---:|---:|---:|---:|');
			const soakIds = [];
			const samples = [];
			const begin = Date.now();
			let nextRestart = begin + RESTART_EVERY_S * 1000;
			while (Date.now() - begin < SOAK_S * 1000) {
				const batch = (await produce([one], rate, 10, 'soak')).get(one);
				soakIds.push(...batch);
				const stored = await session.rest('GET', `/workflows/${one.id}`);
				const stateBytes = JSON.stringify(stored.body?.data?.staticData ?? {}).length;
				const seen = seenIn(logStore, one.log);
				const rss = rssMb(app.child.pid);
				samples.push({
					rss,
					stateBytes,
					restarts: Math.floor((Date.now() - begin) / (RESTART_EVERY_S * 1000)),
				});
				console.log(
					`| ${Math.round((Date.now() - begin) / 1000)} s | ${rss} MB | ${stateBytes} bytes | ${soakIds.filter((id) => seen.has(id)).length}/${soakIds.length} |`,
				);
				if (Date.now() >= nextRestart) {
					await app.stop();
					app = await startApp();
					session = await n8n.ownerSession(app.url);
					nextRestart = Date.now() + RESTART_EVERY_S * 1000;
				}
			}
			sandbox.set({ faults: {} });
			await drained(one, soakIds, 600_000);
			const seen = seenIn(logStore, one.log);
			const lost = soakIds.filter((id) => !seen.has(id)).length;
			const repeats = soakIds.flatMap((id) => (seen.get(id) ?? []).slice(1));
			const range = (values) => `${Math.min(...values)}–${Math.max(...values)}`;
			for (const segment of [...new Set(samples.map((x) => x.restarts))]) {
				const of = samples.filter((x) => x.restarts === segment);
				console.log(
					`trigger load: soak segment ${segment + 1} (after ${segment} restarts): RSS ${range(of.map((x) => x.rss))} MB, state ${range(of.map((x) => x.stateBytes))} bytes`,
				);
			}
			console.log(
				`\ntrigger load: soak: ${soakIds.length} messages, lost ${lost}, delivered again ${repeats.length} (unmarked ${repeats.filter((r) => !r.redelivery).length})`,
			);
		}

		if (ONLY.includes('fanout')) {
			if (!(ONLY.length === 1)) {
				await app.stop();
				for (const t of triggers.slice(1)) await n8n.publishWorkflow(mainFolder, t.id, cli);
				app = await startApp();
				session = await n8n.ownerSession(app.url);
			}
			// A service allowing 5 requests a second (bursts of 10) for the one token.
			sandbox.set({ rateLimit: { shape: 'token-bucket', perSecond: 5, burst: 10 } });
			await sleep(15_000);
			sandbox.resetStats();
			const ids = await produce(triggers, 0.2, 60, 'fanout');
			for (const t of triggers) await drained(t, ids.get(t), 60_000);
			const { requests, rateLimited } = sandbox.stats;
			const p95s = [];
			for (const t of triggers) p95s.push(percentile(await latencies(t, ids.get(t)), 95));
			const behind = p95s.filter((p) => !(p <= (INTERVAL_S + 2) * 1000)).length;
			console.log(
				`\ntrigger load: ${triggers.length} triggers at ${INTERVAL_S} s on one token, 5 requests/s allowed: ${requests} requests, ${rateLimited} answered 429 (${((100 * rateLimited) / Math.max(1, requests)).toFixed(1)} %); p95 per trigger ${s(Math.min(...p95s))} to ${s(Math.max(...p95s))}; behind (p95 > ${INTERVAL_S + 2} s): ${behind}`,
			);
		}
	} finally {
		await app?.stop();
		await cluster?.stop();
		await sandbox.stop();
		await logService.stop();
	}
}

main().catch((error) => {
	console.error(`trigger load: could not run: ${error.stack ?? error}`);
	process.exit(1);
});
