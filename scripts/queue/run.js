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
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const n8n = require('../lib/n8n');
const services = require('../lib/services');
const { createSandbox } = require('../../sandbox/server');
const { N8nProcess, queueEnv, workerExecutions, packageProblems } = require('./cluster');
const wf = require('./workflows');
const { watchPolls } = require('./polls');
const { nodeOnWorkers } = require('./nodeOnWorkers');
const { triggerThroughFaults } = require('./triggerThroughFaults');
const {
	OPTIONS,
	WORKER_LOCK,
	PUBLICATION_LEASE,
	DURABLE_CURSORS,
	WORK,
	TOKEN,
	say,
	finish,
	abort,
} = require('./setting');

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

main().catch(async (error) => {
	await services.cleanup();
	abort(error);
});
