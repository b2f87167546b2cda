#!/usr/bin/env node
'use strict';
/**
 * `npm run test:queue`: the packed package in a real queue-mode n8n (one main, two workers, Redis,
 * Postgres), against the sandbox service run in this process.
 * 1. The Messaging node on the workers: production webhooks, many at once, every operation.
 * 2. The Messaging Trigger on the main while messages arrive in bursts, with faults injected at the
 *    service, through graceful restarts and SIGKILLs of the main and a SIGKILL of a worker: counts
 *    created / delivered / lost / duplicated, per fault kind.
 * Prints one line per check and ends with "queue: N passed, N failed".
 *
 * Options: --trigger-version 1|2 (QUEUE_TRIGGER_VERSION), --quick (QUEUE_QUICK=1: fewer faults and
 * calls), --durable-cursors (QUEUE_DURABLE_CURSORS=1: n8n's durable poll cursors), --break-worker
 * (installs a broken copy of the package on worker-2: the suite must fail naming it), --seed N.
 */
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const n8n = require('../lib/n8n');
const services = require('../lib/services');
const { createSandbox } = require('../../sandbox/server');
const { N8nProcess, queueEnv } = require('./cluster');
const wf = require('./workflows');
const { tally, orderViolations } = require('./tally');
const { createChecks } = require('../lib/checks');

// ---------- options ----------

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
	const at = argv.indexOf(name);
	return at === -1 ? undefined : argv[at + 1];
};
const OPTIONS = {
	triggerVersion: Number(value('--trigger-version') ?? process.env.QUEUE_TRIGGER_VERSION ?? 2),
	quick: flag('--quick') || process.env.QUEUE_QUICK === '1',
	durableCursors: flag('--durable-cursors') || process.env.QUEUE_DURABLE_CURSORS === '1',
	breakWorker: flag('--break-worker'),
	seed: Number(value('--seed') ?? process.env.QUEUE_SEED ?? Date.now() % 100_000),
};
if (!wf.TRIGGER_VERSIONS[OPTIONS.triggerVersion]) {
	console.error(
		`queue: unknown --trigger-version ${OPTIONS.triggerVersion} (known: ${Object.keys(wf.TRIGGER_VERSIONS).join(', ')})`,
	);
	process.exit(2);
}
const TRIGGER = wf.TRIGGER_VERSIONS[OPTIONS.triggerVersion];
const PLAN = OPTIONS.quick
	? {
			messageCalls: 3,
			conversationCalls: 3,
			graceful: 1,
			kills: ['random', 'aimed'],
			workerKills: 1,
		}
	: {
			messageCalls: 10,
			conversationCalls: 10,
			graceful: 3,
			kills: ['random', 'aimed', 'aimed', 'random', 'aimed'],
			workerKills: 1,
		};

/** The longest a restarted trigger may stay busy before its first poll (reading lost deliveries again). */
const MAX_BUSY_MS = 10 * 60_000;
/** Faults at the service the trigger polls (the delivery log's service has none: its POSTs are not retried). */
const POLL_FAULTS = {
	rate429: 0.06,
	rate503: 0.05,
	rate500: 0.01,
	rateDrop: 0.04,
	retryAfterSeconds: 0,
};
/** Shorter than n8n's defaults (60 s lock, 30 s stalled check), so a dead worker's job is noticed within the run. */
const WORKER_LOCK = {
	QUEUE_WORKER_LOCK_DURATION: '15000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '3000',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};
/** How long a dead worker's job takes to fail with these settings: its lock, then the stalled check, and a margin. */
const DEAD_WORKER_SETTLE_MS = 15_000 + 5_000 + 5_000;
/**
 * n8n activates triggers through its publication outbox; a main killed while processing a record holds
 * its lease (120 s by default), and the next main activates nothing until it expires. Shorter here.
 */
const PUBLICATION_LEASE = {
	N8N_WORKFLOW_PUBLICATION_OUTBOX_LEASE_SECONDS: '20',
	N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '2000',
};
const DURABLE_CURSORS = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
};

const WORK = path.join(n8n.ROOT, '.queue');
const TOKEN = 'queue-token-7c1e';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const say = (text) => console.log(`queue: ${text} (${elapsed()})`);

let random = mulberry32(OPTIONS.seed);
const between = (low, high) => low + random() * (high - low);

const { check, elapsed, finish, abort } = createChecks('queue', { stackLines: 30 });

async function waitFor(what, predicate, timeoutMs, everyMs = 250) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await predicate()) return;
		await sleep(everyMs);
	}
	throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}

// ---------- the cluster ----------

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

async function main() {
	services.installSignalHandlers();
	say(
		`trigger version ${OPTIONS.triggerVersion}${OPTIONS.durableCursors ? ', durable poll cursors on' : ''}${OPTIONS.quick ? ', quick' : ''}, seed ${OPTIONS.seed}`,
	);
	services.ensureServicePackages({ log: (m) => say(m) });
	n8n.ensureN8n();
	execFileSync(process.execPath, [path.join(n8n.ROOT, 'node_modules/gulp/bin/gulp.js'), 'build'], {
		cwd: n8n.ROOT,
		stdio: 'ignore',
	});
	fs.rmSync(WORK, { recursive: true, force: true });
	fs.mkdirSync(path.join(WORK, 'logs'), { recursive: true });

	const [redis, postgres] = await Promise.all([services.startRedis(), services.startPostgres()]);
	say(`Redis on 127.0.0.1:${redis.port}, Postgres on 127.0.0.1:${postgres.port}`);

	// The clean service (webhooks' workflows, the delivery log) and the one the trigger polls, with faults.
	const service = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: 'demo',
	}).start();
	const faulty = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: () => {},
		faults: { seed: OPTIONS.seed },
	}).start();
	services.onCleanup(() => service.stop());
	services.onCleanup(() => faulty.stop());
	faulty.store.addContact({ id: 'ct_ann', username: 'ann' });
	const inbox = faulty.store.createConversation({ contact_id: 'ct_ann' }).id;
	const sink = service.store.createConversation({ contact_id: 'ct_bob' }).id;
	const polls = watchPolls(faulty, inbox);
	// One message before activation, so that the first poll stores where the stream stands.
	faulty.store.sendMessage('ct_ann', {
		conversation_id: inbox,
		message: 'before activation',
	});

	const encryptionKey = crypto.randomBytes(24).toString('hex');
	const env = queueEnv({
		redis,
		postgres,
		encryptionKey,
		extra: {
			...WORKER_LOCK,
			...PUBLICATION_LEASE,
			...(OPTIONS.durableCursors ? DURABLE_CURSORS : {}),
		},
	});
	const { tarball } = n8n.packPackage(WORK);
	const folder = (name) => path.join(WORK, name);
	const mainProcess = new N8nProcess({
		name: 'main',
		command: 'start',
		userFolder: folder('main'),
		env: {
			...env,
			...(process.env.QUEUE_MAIN_LOG_LEVEL
				? { N8N_LOG_LEVEL: process.env.QUEUE_MAIN_LOG_LEVEL }
				: {}),
		},
		logFile: path.join(WORK, 'logs', 'main.log'),
	});
	const workers = [1, 2].map(
		(n) =>
			new N8nProcess({
				name: `worker-${n}`,
				command: 'worker',
				args: ['--concurrency=5'],
				userFolder: folder(`worker-${n}`),
				env,
				logFile: path.join(WORK, 'logs', `worker-${n}.log`),
			}),
	);
	for (const p of [mainProcess, ...workers]) n8n.installPackage(p.userFolder, tarball);
	if (OPTIONS.breakWorker) {
		const file = path.join(
			workers[1].userFolder,
			'.n8n',
			'nodes',
			'node_modules',
			n8n.PACKAGE_NAME,
			'dist',
			'nodes',
			'Messaging',
			'Messaging.node.js',
		);
		fs.writeFileSync(
			file,
			"throw new Error('this copy of the package is broken on purpose (--break-worker)');\n",
		);
	}

	const credentialsFile = path.join(WORK, 'credentials.json');
	fs.writeFileSync(
		credentialsFile,
		JSON.stringify(wf.credentialsFile(service.url, faulty.url, TOKEN)),
	);
	const workflows = [
		wf.messageOperations(),
		wf.conversationOperations(),
		wf.triggerToSink(OPTIONS.triggerVersion, inbox, sink),
	];
	const workflowsDir = path.join(WORK, 'workflows');
	fs.mkdirSync(workflowsDir);
	for (const workflow of workflows)
		fs.writeFileSync(path.join(workflowsDir, `${workflow.id}.json`), JSON.stringify(workflow));
	await n8n.n8nCli(mainProcess.userFolder, ['import:credentials', `--input=${credentialsFile}`], {
		env,
		timeoutMs: 300_000,
	});
	await n8n.n8nCli(
		mainProcess.userFolder,
		['import:workflow', '--separate', `--input=${workflowsDir}`],
		{ env },
	);
	await Promise.all(
		workflows.map((w) =>
			n8n.publishWorkflow(mainProcess.userFolder, w.id, {
				env,
			}),
		),
	);
	say('package installed in 3 user folders; credentials and 3 workflows imported and published');

	await Promise.all([mainProcess.start(), ...workers.map((w) => w.start())]);
	const executions = new Map(workers.map((w) => [w.name, workerExecutions(w).listen()]));
	say(`main on ${mainProcess.url}, workers ready`);
	const problems = packageProblems([mainProcess, ...workers]);
	if (problems.length > 0) {
		// n8n starts a worker even when a community package fails to load; its runs would fail later.
		throw new Error(`n8n cannot load ${n8n.PACKAGE_NAME}:\n  ${problems.join('\n  ')}`);
	}

	const report = { faults: [], executionsBefore: {} };
	try {
		await nodeOnWorkers({ mainProcess, workers, executions, service });
		await triggerThroughFaults({
			mainProcess,
			workers,
			executions,
			service,
			faulty,
			inbox,
			sink,
			polls,
			report,
		});
	} finally {
		for (const p of [mainProcess, ...workers])
			await p.terminate({ timeoutMs: 20_000 }).catch(() => {});
		await services.cleanup();
	}
	say(`logs in ${path.relative(n8n.ROOT, path.join(WORK, 'logs'))}/`);
	finish();
}

// ---------- 1. the node on workers ----------

async function nodeOnWorkers({ mainProcess, workers, executions, service }) {
	const { store } = service;
	const before = new Map(workers.map((w) => [w.name, executions.get(w.name).started.size]));
	const report = store.createConversation({ contact_id: 'ct_cy' }).id;
	const messageCalls = Array.from({ length: PLAN.messageCalls }, (_, i) => {
		const conversation = store.createConversation({ contact_id: 'ct_ann' }).id;
		// More than one page (the node asks for 100 at a time), so Return All has to page.
		for (let n = 0; n < 130; n++)
			store.sendMessage('ct_ann', {
				conversation_id: conversation,
				message: `filler ${n}`,
			});
		const deleteId = store.sendMessage('ct_ann', {
			conversation_id: conversation,
			message: 'delete me',
		}).id;
		return {
			path: 'queue-messages',
			body: { conversation, tag: `m${i}`, deleteId },
		};
	});
	const conversationCalls = Array.from({ length: PLAN.conversationCalls }, (_, i) => ({
		path: 'queue-conversations',
		body: {
			contact: 'ct_dana',
			tag: `c${i}`,
			deleteId: store.createConversation({ contact_id: 'ct_cy' }).id,
			report,
		},
	}));
	const calls = [...messageCalls, ...conversationCalls];
	const call = async ({ path: route, body }) => {
		for (let attempt = 0; ; attempt++) {
			const response = await fetch(`${mainProcess.url}/webhook/${route}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
				signal: AbortSignal.timeout(180_000),
			});
			const text = await response.text();
			// Webhooks register while the main activates its workflows.
			if (response.status === 404 && attempt < 40) {
				await sleep(500);
				continue;
			}
			return { status: response.status, text };
		}
	};
	const t0 = Date.now();
	const answers = await Promise.all(calls.map(call));
	say(`${calls.length} webhook calls answered in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

	const failedCalls = answers
		.map((a, i) => ({ ...a, call: calls[i] }))
		.filter((a) => a.status !== 200);
	await check(`${calls.length} production webhook runs at once, all answered 200`, () => {
		if (failedCalls.length === 0) return;
		const problems = packageProblems(workers);
		const erroredOn = workers
			.map((w) => [
				w.name,
				w.output
					.split('\n')
					.filter((l) => /Worker errored|Unrecognized node type|Problem with execution/i.test(l)),
			])
			.filter(([, lines]) => lines.length > 0)
			.map(([name, lines]) => `${name}: ${lines.slice(0, 3).join(' | ')}`);
		throw new Error(
			`${failedCalls.length} of ${calls.length} calls failed, e.g. ${failedCalls[0].status} ${failedCalls[0].text.slice(0, 300)}\n` +
				`${problems.length > 0 ? `package problems:\n  ${problems.join('\n  ')}\n` : ''}${erroredOn.join('\n')}`,
		);
	});

	await check(
		'every message operation left the right state at the service (Send, Get, Update with reactions, Add/Remove Reaction, Delete, Get Many over pages)',
		() => {
			for (const { body } of messageCalls) {
				const messages = store
					.listMessages({ conversation_id: body.conversation })
					.map((m) => store.renderMessage(m));
				const sent = messages.find((m) => m.message === `q ${body.tag} edited`);
				assert.ok(sent, `${body.tag}: the edited message is missing`);
				assert.deepEqual(sent.reactions, [{ like: ['bob'] }, { 'party & fun': ['zoë'] }], body.tag);
				assert.deepEqual(sent.attachments, [{ name: 'a.txt' }], body.tag);
				assert.equal(
					store.messages.has(body.deleteId),
					false,
					`${body.tag}: ${body.deleteId} was not deleted`,
				);
				// 130 fillers + the sent one (the deleted one gone): Get Many with Return All read them all.
				assert.ok(
					messages.some((m) => m.message === 'count 131'),
					`${body.tag}: no "count 131" report`,
				);
			}
			const paged = service.requests.filter(
				(r) => r.method === 'GET' && r.path === '/v1/messages' && /starting_after=/.test(r.query),
			);
			assert.ok(
				paged.length >= messageCalls.length,
				`Get Many asked for a second page ${paged.length} times`,
			);
			for (const [method, pattern] of [
				['GET', /^\/v1\/messages\/msg_/],
				['PATCH|PUT', /^\/v1\/messages\/msg_/],
				['DELETE', /^\/v1\/messages\/msg_/],
				['POST', /^\/v1\/messages$/],
			]) {
				assert.ok(
					service.requests.some(
						(r) =>
							new RegExp(`^(${method})$`).test(r.method) &&
							pattern.test(r.path) &&
							r.status === 200,
					),
					`no ${method} ${pattern}`,
				);
			}
		},
	);

	await check(
		'every conversation operation left the right state at the service (Create, Get, Update, Archive/Unarchive, Pin/Unpin, Mute/Unmute, Get Many with filters, Delete)',
		() => {
			const reports = store.listMessages({ conversation_id: report }).map((m) => m.message);
			for (const { body } of conversationCalls) {
				const line = reports.find((text) => text.startsWith(`conv ${body.tag} `));
				assert.ok(line, `${body.tag}: no report`);
				const [, , id, , listed] = line.split(' ');
				assert.equal(listed, 'true', `${body.tag}: Get Many (archived, muted) did not list ${id}`);
				const created = store.conversation(id);
				assert.equal(created.contact_id, 'ct_dana');
				assert.equal(created.is_pinned, true, `${body.tag}: not pinned`);
				assert.equal(created.is_muted, true, `${body.tag}: not muted`);
				assert.ok(
					Math.abs(created.archived_at - Date.now() / 1000) < 600,
					`${body.tag}: archived_at ${created.archived_at} is not now`,
				);
				assert.equal(
					store.conversations.has(body.deleteId),
					false,
					`${body.tag}: ${body.deleteId} was not deleted`,
				);
				const updates = service.requests.filter(
					(r) =>
						/^(PATCH|PUT)$/.test(r.method) &&
						r.path === `/v1/conversations/${id}` &&
						r.status === 200,
				);
				// Update, Unarchive, Unpin, Unmute, Pin, Mute, Archive
				assert.equal(updates.length, 7, `${body.tag}: ${updates.length} updates of ${id}`);
			}
		},
	);

	await check(
		'the webhook runs ran on the workers, and both workers took some (worker log "Worker started execution")',
		() => {
			const counts = workers.map((w) => executions.get(w.name).started.size - before.get(w.name));
			say(
				`webhook executions per worker: ${workers.map((w, i) => `${w.name} ${counts[i]}`).join(', ')}`,
			);
			assert.equal(
				counts.reduce((a, b) => a + b, 0),
				calls.length,
				'every webhook run started on a worker, once',
			);
			for (const [i, count] of counts.entries())
				assert.ok(count > 0, `${workers[i].name} ran none`);
			assert.equal(
				(mainProcess.output.match(/Enqueued execution/g) ?? []).length >= calls.length,
				true,
				'the main enqueued them',
			);
		},
	);
}

// ---------- 2. the trigger through restarts and crashes ----------

/**
 * Watches the trigger's requests at the faulty service: when each list request came, who wants to know, and
 * what else it asked (after a crash it reads the lost deliveries again, one request per message, before it lists).
 */
function watchPolls(faulty, inbox) {
	const watch = {
		times: [],
		listeners: new Set(),
		last: 0,
		lastAny: performance.now(),
		requests: [],
	};
	const push = Array.prototype.push;
	faulty.requests.push = function (...records) {
		for (const record of records) {
			watch.lastAny = performance.now();
			watch.requests.push({ at: Date.now(), record });
			if (
				record.method === 'GET' &&
				record.path === '/v1/messages' &&
				record.query.includes(inbox)
			) {
				watch.last = performance.now();
				watch.times.push(Date.now());
				for (const fn of [...watch.listeners]) fn(record);
			}
		}
		return push.apply(this, records);
	};
	/** What the trigger asked the service since `since` (ms epoch). */
	watch.asked = (since) => {
		const counts = {};
		for (const { at, record } of watch.requests) {
			if (at < since) continue;
			const path = record.path.replace(/\/(msg|conv|ct)_[^/]+/g, '/:id');
			const kind = `${record.method} ${path} ${record.status || 'no answer'}`;
			counts[kind] = (counts[kind] ?? 0) + 1;
		}
		return `requests at the polled service since then: ${JSON.stringify(counts)}`;
	};
	/**
	 * Rejects once the service has heard nothing at all for `silentMs` (a stuck trigger; a trigger that is
	 * busy reading lost deliveries again is not), or after MAX_BUSY_MS in all. `stop()` ends the watch.
	 */
	watch.silence = (since, silentMs, what) => {
		let timer;
		const failed = new Promise((_, reject) => {
			const startedAt = performance.now();
			timer = setInterval(() => {
				const now = performance.now();
				const silent = now - Math.max(startedAt, watch.lastAny);
				if (silent < silentMs && now - startedAt < MAX_BUSY_MS) return;
				clearInterval(timer);
				reject(
					new Error(
						`${what} within ${Math.round((now - startedAt) / 1000)} s; ${watch.asked(since)}`,
					),
				);
			}, 250);
		});
		return { failed, stop: () => clearInterval(timer) };
	};
	/** Resolves when a poll that began after `since` (ms epoch) has been quiet for `quietMs`. */
	watch.pollAfter = async (since, silentMs, quietMs = 800) => {
		const silence = watch.silence(since, silentMs, 'no poll of the trigger');
		try {
			await Promise.race([
				silence.failed,
				waitFor(
					'a poll of the trigger',
					() => watch.times.some((t) => t >= since),
					MAX_BUSY_MS,
					100,
				),
			]);
		} finally {
			silence.stop();
		}
		await waitFor('the poll to end', () => performance.now() - watch.last >= quietMs, 60_000, 50);
		return watch.times.filter((t) => t >= since)[0];
	};
	return watch;
}

async function triggerThroughFaults({
	mainProcess,
	workers,
	executions,
	service,
	faulty,
	inbox,
	sink,
	polls,
	report,
}) {
	const created = [];
	let phase = 'graceful';
	let producing = true;
	let lastCreatedAt = Date.now();
	const burst = (size) => {
		for (let n = 0; n < size; n++) {
			const message = faulty.store.sendMessage('ct_ann', {
				conversation_id: inbox,
				message: `m ${phase} ${created.length}`,
			});
			created.push({ id: message.id, phase });
		}
		lastCreatedAt = Date.now();
	};
	// Bursts larger than the trigger's page, a few seconds apart, until the drain.
	const producer = (async () => {
		while (producing) {
			burst(Math.round(between(5, 2.5 * wf.TRIGGER_PAGE_SIZE)));
			await sleep(between(2000, 5000));
		}
	})();
	const executionsAt = () =>
		Object.fromEntries(workers.map((w) => [w.name, executions.get(w.name).started.size]));
	const phaseStart = { graceful: executionsAt() };
	faulty.set({ faults: { ...POLL_FAULTS, seed: OPTIONS.seed } });
	say(
		`trigger v${OPTIONS.triggerVersion}: stream started (bursts of 5-${2.5 * wf.TRIGGER_PAGE_SIZE} messages, page ${wf.TRIGGER_PAGE_SIZE}); faults at the service: ${JSON.stringify(POLL_FAULTS)}`,
	);
	// The longest silence of a running trigger: its backoff when injected faults fail a few checks in a row.
	const checkWindow = TRIGGER.checkEveryMs + 150_000;

	for (let i = 1; i <= PLAN.graceful; i++) {
		await sleep(between(1000, 6000));
		const at = Date.now();
		await mainProcess.terminate();
		const stoppedMs = Date.now() - at;
		await mainProcess.start();
		await polls.pollAfter(at, checkWindow);
		report.faults.push({
			kind: 'graceful',
			detail: `SIGTERM, n8n stopped in ${stoppedMs} ms`,
		});
		say(
			`graceful restart ${i}/${PLAN.graceful}: main stopped in ${stoppedMs} ms, restarted, polled`,
		);
	}

	// What the executions recorded through the graceful restarts, once the last restart's first check ran.
	await sleep(5000);
	const seenAfterGraceful = seenRecords(service, sink);

	phase = 'main-kill';
	phaseStart['main-kill'] = executionsAt();
	for (const [i, kind] of PLAN.kills.entries()) {
		let detail;
		if (kind === 'random') {
			if (!mainProcess.running) await mainProcess.start();
			await sleep(between(0, 10_000));
			const sinceLast = performance.now() - polls.last;
			await mainProcess.kill();
			detail = `random moment, ${sinceLast.toFixed(0)} ms after the trigger's last request`;
		} else {
			// Aimed: armed before n8n starts (it polls at activation), fires delayMs after a poll's last request.
			const delayMs = Math.round(between(0, 50));
			const fired = killAfterPoll(mainProcess, polls, delayMs, checkWindow);
			if (!mainProcess.running) {
				await mainProcess.start().catch((error) => {
					if (mainProcess.running) throw error; // else: killed while starting, as intended
				});
			}
			const measured = await fired;
			detail = `aimed ${delayMs} ms after a poll's last request, killed ${measured.gap.toFixed(1)} ms after it, ${(measured.afterMs / 1000).toFixed(0)} s after the start began`;
		}
		report.faults.push({ kind: 'main-kill', detail });
		say(`main SIGKILL ${i + 1}/${PLAN.kills.length}: ${detail}`);
	}
	const restartedAt = Date.now();
	await mainProcess.start();
	const firstPoll = await polls.pollAfter(restartedAt, checkWindow);
	say(
		`main started after the kills; first poll ${((firstPoll - restartedAt) / 1000).toFixed(0)} s after the start began; ${polls.asked(restartedAt)}`,
	);

	phase = 'worker-kill';
	phaseStart['worker-kill'] = executionsAt();
	for (let i = 0; i < PLAN.workerKills; i++) {
		// Slower deliveries at the sink so a big execution is surely still running when the worker dies.
		service.set({ latencyMs: 15 });
		const burstAt = Date.now();
		burst(8 * wf.TRIGGER_PAGE_SIZE);
		const victim = await new Promise((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error('no trigger execution started on a worker after the burst')),
				checkWindow + 30_000,
			);
			for (const w of workers) {
				const off = w.onLine((line) => {
					const m = /Worker started execution (\d+)/.exec(line);
					// The first execution started by a poll that read the burst.
					if (m && polls.times.some((t) => t >= burstAt)) {
						clearTimeout(timer);
						off();
						resolve({ worker: w, execution: m[1] });
					}
				});
			}
		});
		await sleep(between(200, 600));
		const finishedAlready = executions.get(victim.worker.name).finished.has(victim.execution);
		await victim.worker.kill();
		// Its unfinished executions will never report back from this process.
		const e = executions.get(victim.worker.name);
		for (const id of e.started.keys()) e.finished.add(id);
		const detail = `${victim.worker.name} SIGKILLed while running execution ${victim.execution}${finishedAlready ? ' (it had just finished)' : ''}`;
		report.faults.push({ kind: 'worker-kill', detail });
		say(`${detail}; restarting it`);
		await victim.worker.start();
		service.set({ latencyMs: 0 });
	}

	phase = 'drain';
	producing = false;
	await producer;
	say(
		`stream stopped: ${created.length} messages created; waiting for the last poll and executions`,
	);
	const settleFrom = lastCreatedAt;
	await polls.pollAfter(settleFrom + 100, checkWindow + 30_000);
	// Until the sink is quiet, every running execution finished, and a crashed job had its lock expire.
	let lastCount = -1;
	let quietSince = Date.now();
	await waitFor(
		'the deliveries to settle',
		() => {
			const count = seenRecords(service, sink).length;
			if (count !== lastCount) {
				lastCount = count;
				quietSince = Date.now();
			}
			const running = workers.flatMap((w) => {
				const e = executions.get(w.name);
				return w.running ? [...e.started.keys()].filter((id) => !e.finished.has(id)) : [];
			});
			if (running.length > 0) return false;
			// Everything arrived; or nothing moved for longer than a dead worker's job takes to fail (its lock,
			// then the stalled check) plus the trigger's next checks, which emit its messages again.
			const allSeen = new Set(seenRecords(service, sink).map((r) => r.id));
			if (created.every((m) => allSeen.has(m.id))) return Date.now() - quietSince > 3_000;
			return Date.now() - quietSince > DEAD_WORKER_SETTLE_MS + 2 * TRIGGER.checkEveryMs;
		},
		TRIGGER.checkEveryMs + 180_000,
		500,
	);
	faulty.set({ faults: {} });
	phaseStart.end = executionsAt();

	// ---- figures ----
	const seen = seenRecords(service, sink);
	const counted = tally(created, seen);
	const order = orderViolations(seen);
	const perWorker = workers
		.map((w) => `${w.name} ${executions.get(w.name).started.size - phaseStart.graceful[w.name]}`)
		.join(', ');
	console.log(
		`\nqueue: trigger v${OPTIONS.triggerVersion}${OPTIONS.durableCursors ? ' with durable poll cursors' : ''}: created / delivered / lost / duplicated (extra deliveries, of which marked redelivery)`,
	);
	const fmt = (r) =>
		`${r.phase.padEnd(12)} ${String(r.created).padStart(5)} ${String(r.delivered).padStart(9)} ${String(r.lost).padStart(5)} ${String(r.duplicated).padStart(10)}  (${r.extraDeliveries}, ${r.markedRedeliveries} marked)`;
	console.log(`  ${'fault kind'.padEnd(12)} created delivered  lost duplicated`);
	for (const r of counted.phases) console.log(`  ${fmt(r)}`);
	console.log(`  ${fmt({ ...counted.total, phase: 'all' })}`);
	console.log(
		`  faults: ${report.faults.map((f) => `${f.kind}: ${f.detail}`).join('\n          ')}`,
	);
	console.log(
		`  trigger executions per worker: ${perWorker}; executions with deliveries: ${order.executions}; polls (list requests) ${polls.times.length}; service faults injected ${faulty.stats.faults}`,
	);
	if (counted.lostIds.length > 0)
		console.log(`  lost, first ids: ${counted.lostIds.slice(0, 10).join(', ')}`);
	for (const [path, count] of counted.repeatedIn)
		console.log(`  delivered again: ${count} message(s) by executions ${path}`);
	console.log('');

	await check(
		'the triggered workflow ran on the workers and recorded deliveries at the service, only of created messages',
		() => {
			assert.ok(counted.total.delivered > 0, 'no delivery reached the sink');
			assert.deepEqual(counted.unknownIds, [], 'the sink names messages that were never created');
		},
	);
	await check(
		'every start of the main activated the trigger (n8n logged no failed activation)',
		() => {
			const log = fs.readFileSync(mainProcess.logFile, 'utf8');
			const failed = log
				.split('\n')
				.filter((line) => /failed to activate|partially published/i.test(line));
			assert.deepEqual(failed, []);
		},
	);
	await check('oldest first within each execution', () => {
		assert.deepEqual(order.violations.slice(0, 3), []);
	});
	await check(
		`trigger executions ran on the workers${OPTIONS.triggerVersion >= 2 ? ', both of them' : ''}`,
		() => {
			const counts = workers.map(
				(w) => executions.get(w.name).started.size - phaseStart.graceful[w.name],
			);
			assert.ok(counts.reduce((a, b) => a + b, 0) > 0, 'no trigger execution started on a worker');
			// v1 polls once a minute (and at activation): a handful of executions, which may all land on one worker.
			if (OPTIONS.triggerVersion >= 2)
				for (const [i, count] of counts.entries())
					assert.ok(count > 0, `${workers[i].name} ran no trigger execution`);
		},
	);
	if (OPTIONS.triggerVersion >= 2) {
		await check(
			'every created message delivered (0 lost) through restarts, SIGKILLs of the main and of a worker',
			() => {
				if (counted.total.lost === 0) return;
				// What the trigger said, across the main's restarts, to tell a spent delivery from a stuck one.
				const said = fs
					.readFileSync(mainProcess.logFile, 'utf8')
					.split('\n')
					.filter((line) =>
						/Messaging Trigger|not delivered|Scheduled execution skipped/.test(line),
					);
				assert.fail(
					`lost: ${counted.lostIds.slice(0, 20).join(', ')}\n` +
						`the trigger's log lines (last 30 of ${said.length}):\n  ${said.slice(-30).join('\n  ')}`,
				);
			},
		);
		await check(
			'graceful restarts redeliver nothing: the stop waited for its executions and saved their end',
			() => {
				const redelivered = seenAfterGraceful.filter((r) => r.redelivery);
				assert.deepEqual(
					redelivered.map((r) => `${r.id} x${r.execution} a${r.attempt} ${r.reason}`).slice(0, 20),
					[],
				);
			},
		);
		await check(
			'every redelivery says why: the last attempt failed, or its outcome is unknown to a trigger',
			() => {
				const reasons = new Map();
				for (const r of seen.filter((s) => s.redelivery))
					reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
				console.log(`  redeliveries by reason: ${JSON.stringify(Object.fromEntries(reasons))}`);
				for (const reason of reasons.keys())
					assert.ok(
						['previousAttemptFailed', 'previousOutcomeUnknown'].includes(reason),
						`reason ${reason}`,
					);
			},
		);
		await check('every message delivered twice is marked redelivery: true', () => {
			assert.equal(
				counted.total.unmarkedDuplicates,
				0,
				`unmarked: ${counted.unmarkedIds.slice(0, 20).join(', ')}`,
			);
		});
	} else {
		console.log(
			`queue: trigger v1 is measured, not judged (it advances its state when it lists): lost ${counted.total.lost}, duplicated ${counted.total.duplicated}`,
		);
	}
}

/** Kills the main `delayMs` after the last request of the next poll; resolves with the measured gap and when. */
function killAfterPoll(mainProcess, polls, delayMs, silentMs) {
	const armedAt = Date.now();
	return new Promise((resolve, reject) => {
		let timer;
		const silence = polls.silence(armedAt, silentMs, 'the main did not poll after starting');
		const fire = () => {
			const gap = performance.now() - polls.last;
			polls.listeners.delete(onRequest);
			silence.stop();
			mainProcess.signalGroup('SIGKILL');
			mainProcess.exited.then(() => resolve({ gap, afterMs: Date.now() - armedAt }));
		};
		const onRequest = () => {
			clearTimeout(timer);
			timer = setTimeout(fire, delayMs);
		};
		silence.failed.catch((error) => {
			polls.listeners.delete(onRequest);
			reject(new Error(`${error.message}\n${mainProcess.lastLines()}`));
		});
		polls.listeners.add(onRequest);
	});
}

function seenRecords(service, sink) {
	return service.store
		.listMessages({ conversation_id: sink })
		.sort((a, b) => (a.id < b.id ? -1 : 1))
		.map((m) => wf.parseSeen(m.message))
		.filter(Boolean);
}

function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

main().catch(async (error) => {
	await services.cleanup();
	abort(error);
});
