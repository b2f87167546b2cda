#!/usr/bin/env node
'use strict';
/**
 * Recovery bench (docs/exactly-once.md): how long a restarted n8n takes to deliver again the 1,000 events
 * a crash left in flight. A version 2 trigger runs in n8n-core's TriggerContext (test/harness/n8n.js) in a
 * child process against the sandbox on loopback (in this process), at the bench service's latency and
 * rate limit (scripts/bench/service.js): the first child checks, gets 1,000 new messages, emits them
 * (10 executions of 100 that never end) and is killed; a second child starts on the static data n8n saved
 * and the executions n8n keeps (their deduplication keys), as a restarted n8n does. Measured: from its
 * activation to the last of the 1,000 events in a started execution, and the requests it made.
 *
 * `node scripts/bench/recovery.js [--compare REF]`, or `npm run bench -- --only recovery [--compare REF]
 * [--splice]`. --compare builds REF (scripts/bench/filesCompare.js) and measures it right before this build.
 */
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** RECOVERY_BENCH_EVENTS: fewer, for a smoke run of the script. */
const EVENTS = Number(process.env.RECOVERY_BENCH_EVENTS) || 1000;
const TITLE = '## Recovery after a crash: 1,000 events in flight';
const SCENARIOS = {
	'default limits': {},
	'with faults': { rate429: 0.05, rate503: 0.03, rate500: 0.01, rateDrop: 0.03, seed: 44 },
};
const NODE = 'Messaging Trigger';
const PARAMETERS = { interval: 5, unit: 'seconds', events: ['newMessage'], options: {} };

// ---------- the child: one activation of the trigger ----------

async function child({ phase, credentials, saved, keys: keptKeys }) {
	const { versionedNodeTypes, additionalData } = require('../../test/harness/n8n');
	const { TriggerContext, TriggersAndPollers } = require('n8n-core');
	const { Container } = require(
		require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
	);
	const { Workflow } = require('n8n-workflow');
	const node = {
		id: 'node-trigger-1',
		name: NODE,
		type: 'n8n-nodes-messaging.messagingTrigger',
		typeVersion: 2,
		position: [0, 0],
		parameters: PARAMETERS,
		credentials: { messagingApi: { id: 'cred-1', name: 'Messaging account' } },
	};
	const workflowData = { id: 'wf-recovery', name: 'recovery', nodes: [node], connections: {} };
	const workflow = new Workflow({
		...workflowData,
		active: true,
		settings: {},
		nodeTypes: versionedNodeTypes(),
		staticData: saved ?? {},
	});
	const keys = new Set(keptKeys);
	let savedNow = saved ?? {};
	let started = 0;
	let done;
	const finished = new Promise((resolve) => (done = resolve));
	// What n8n does: save the static data, then start an execution unless one with the key exists.
	const emit = (data, responsePromise, donePromise, key) => {
		savedNow = JSON.parse(JSON.stringify(workflow.staticData));
		if (keys.has(key)) return void Promise.resolve().then(() => donePromise?.resolve(undefined));
		keys.add(key);
		started += data[0].length;
		if (started >= EVENTS) done();
	};
	const data = additionalData(credentials, workflowData);
	const context = new TriggerContext(workflow, node, data, 'trigger', 'init', emit, () => {});
	const startedAt = performance.now();
	await Container.get(TriggersAndPollers).runTriggerFunction(
		workflow,
		node,
		() => context,
		data,
		'trigger',
		'init',
	);
	if (phase === 'first') process.send({ ready: true });
	await finished;
	process.send({ ms: Math.round(performance.now() - startedAt), saved: savedNow, keys: [...keys] });
}

// ---------- the parent ----------

function startChild(dist, payload) {
	const proc = fork(__filename, ['--child'], {
		env: { ...process.env, MESSAGING_DIST: dist, N8N_LOG_LEVEL: 'silent' },
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
	});
	const messages = [];
	let wake = () => {};
	proc.on('message', (m) => {
		messages.push(m);
		wake();
	});
	proc.send(payload);
	const next = async () => {
		while (messages.length === 0) await new Promise((resolve) => (wake = resolve));
		return messages.shift();
	};
	return { next, kill: () => proc.kill('SIGKILL') };
}

/** One crash and restart with the build in `dist`: the restart's time and requests. */
async function measure(dist, faults) {
	const { createSandbox } = require('../../sandbox/server');
	const { LATENCY_MS, JITTER_MS, RATE, TOKEN } = require('./service');
	const sandbox = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: 'none',
		latencyMs: LATENCY_MS,
		latencyJitterMs: JITTER_MS,
		rateLimit: RATE,
	}).start();
	try {
		sandbox.store.addContact({ id: 'ct_ann' });
		sandbox.store.createConversation({ contact_id: 'ct_ann' });
		const credentials = {
			baseUrl: sandbox.url,
			accessToken: TOKEN,
			timestampUnit: 'auto',
			ownContactId: 'ct_me',
		};
		const first = startChild(dist, { phase: 'first', credentials });
		await first.next(); // activated: where the stream stands is saved
		for (let i = 0; i < EVENTS; i++)
			sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: `m${i}` });
		const { saved, keys } = await first.next(); // the next check emitted them all
		first.kill();
		sandbox.set({ faults });
		sandbox.clearRequests();
		const stats = { ...sandbox.stats };
		const second = startChild(dist, { phase: 'restart', credentials, saved, keys });
		const { ms } = await second.next();
		second.kill();
		const gets = sandbox.requests.filter((r) => r.method === 'GET');
		return {
			ms,
			requests: sandbox.stats.requests - stats.requests,
			lists: gets.filter((r) => r.path === '/v1/messages').length,
			reads: gets.filter((r) => /^\/v1\/messages\/./.test(r.path)).length,
			answered429: sandbox.stats.rateLimited - stats.rateLimited,
			faults: sandbox.stats.faults - stats.faults,
		};
	} finally {
		await sandbox.stop();
	}
}

async function benchRecovery({ compare, log = (t) => process.stderr.write(t) } = {}) {
	const started = new Date();
	const { buildRef } = require('./filesCompare');
	const before = compare ? buildRef(compare) : null;
	const rows = [];
	try {
		for (const [name, faults] of Object.entries(SCENARIOS)) {
			const row = { name };
			if (before) {
				log(`recovery, ${name}, ${compare}: `);
				row.before = await measure(before.dist, faults);
				log(`${row.before.ms} ms\n`);
			}
			log(`recovery, ${name}, this build: `);
			row.after = await measure(path.join(__dirname, '..', '..', 'dist'), faults);
			log(`${row.after.ms} ms\n`);
			rows.push(row);
		}
	} finally {
		before?.cleanup();
	}
	return { rows, section: recoverySection(rows, { started, compared: before }) };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const cells = (r) =>
	`${seconds(r.ms)} | ${r.requests} | ${r.lists} | ${r.reads} | ${r.answered429} | ${r.faults} |`;

function recoverySection(rows, { started, compared }) {
	const { RATE, LATENCY_MS, JITTER_MS } = require('./service');
	const core = require(path.join(require.resolve('n8n-core'), '../../package.json')).version;
	const lines = [TITLE, ''];
	lines.push(
		`Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench -- --only recovery${compared ? ` --compare ${compared.ref}` : ''}\` on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; Node ${process.version}, n8n-core ${core}; 1-minute load average ${os.loadavg()[0].toFixed(2)} at the end (the machine is shared).`,
		'',
		`A version 2 trigger (every 5 s, page size 100) in n8n-core's TriggerContext, in a child process, against the sandbox on loopback (${LATENCY_MS}–${LATENCY_MS + JITTER_MS} ms per request, ${RATE.perSecond} requests/s token bucket, burst ${RATE.burst}). It emits 1,000 new messages (10 executions of 100 that never end) and is killed; a new process starts on the static data saved and the executions that exist. **Time**: from its activation to the last of the 1,000 events in a started execution (each lost attempt is repeated under its own key, dropped as its execution exists, then its next attempt goes out marked \`previousOutcomeUnknown\`). Requests are those of the new process until then. With faults: 5% 429, 3% 503, 1% 500 and 3% dropped connections, at random.`,
		'',
	);
	if (compared)
		lines.push(
			`**Before**: the package at \`${compared.ref}\` (${compared.commit.slice(0, 10)}), run right before the current build in each case.`,
			'',
		);
	lines.push(
		'| service | build | time | requests | list requests | reads by id | answered 429 | faults |',
		'|---|---|---:|---:|---:|---:|---:|---:|',
	);
	for (const { name, before, after } of rows) {
		if (before) lines.push(`| ${name} | before | ${cells(before)}`);
		lines.push(`| ${name} | ${before ? 'after' : 'this build'} | ${cells(after)}`);
	}
	lines.push('', 'How recovery reads again: [docs/exactly-once.md](docs/exactly-once.md).', '');
	return lines.join('\n');
}

/** BENCHMARKS.md with the recovery section replaced (or added before the trigger poll's section, else at the end). */
function spliceRecovery(existing, section) {
	const lines = existing.split('\n');
	const start = lines.indexOf(TITLE);
	let end = start + 1;
	while (start !== -1 && end < lines.length && !lines[end].startsWith('## ')) end += 1;
	const at = start !== -1 ? start : lines.findIndex((l) => l.startsWith('## Trigger poll'));
	const where = at === -1 ? lines.length : at;
	lines.splice(where, start !== -1 ? end - start : 0, ...section.split('\n'));
	return lines.join('\n');
}

/** `--only recovery`: .bench/BENCHMARKS.partial.md, and with --splice into BENCHMARKS.md. */
function writeRecovery({ section }, { splice }) {
	const root = path.join(__dirname, '..', '..');
	fs.mkdirSync(path.join(root, '.bench'), { recursive: true });
	fs.writeFileSync(path.join(root, '.bench/BENCHMARKS.partial.md'), section);
	if (splice) {
		const file = path.join(root, 'BENCHMARKS.md');
		fs.writeFileSync(file, spliceRecovery(fs.readFileSync(file, 'utf8'), section));
		process.stderr.write('BENCHMARKS.md: the recovery section written in.\n');
	}
	console.log(section);
}

if (require.main === module) {
	if (process.argv.includes('--child')) {
		process.once('message', (payload) =>
			child(payload).catch((error) => {
				console.error(error);
				process.exit(1);
			}),
		);
	} else {
		const args = process.argv.slice(2);
		const compare = args.includes('--compare') ? args[args.indexOf('--compare') + 1] : undefined;
		benchRecovery({ compare })
			.then((result) => writeRecovery(result, { splice: args.includes('--splice') }))
			.catch((error) => {
				console.error(error);
				process.exit(1);
			});
	}
}

module.exports = { benchRecovery, writeRecovery, spliceRecovery };
