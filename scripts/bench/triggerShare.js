#!/usr/bin/env node
'use strict';
/**
 * Many Messaging Triggers on one token in a real `n8n start` (`npm run bench -- --only share`): 1, then
 * 20, then 100 trigger workflows (version 2, every 5 s, every conversation) active at once against the
 * sandbox; then, those stopped, 100 triggers each on a conversation of its own (a workflow per customer).
 * Per row: the list requests an hour while nothing happens (counted by the sandbox from the first to
 * the last one, scaled), and while messages flow the p50/p95 from a message's creation to the start of
 * each execution that received it (n8n's startedAt), lost messages and unmarked repeats. Messages are
 * created at a steady rate, each at another point of the 5 s interval. With `--compare REF` the
 * package's runtime code at REF is measured first, right before the current build, in a fresh n8n.
 *
 *   flock /work/heavy.lock npm run bench -- --only share [--compare REF] [--splice]
 *   node scripts/bench/triggerShare.js [--counts 1,20,100] [--conversations 100] [--idle 45] [--flow 30]
 *     [--rate 0.2] [--conversation-rate 1] [--compare REF]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const n8n = require('../lib/n8n');
const { buildPackage } = require('../lib/build');
const { createSandbox } = require('../../sandbox/server');
const wf = require('../../test/e2e/workflows');
const { byId } = require('../lib/workflows');
const { buildRef } = require('./filesCompare');
const { percentile } = require('../lib/percentile');

const INTERVAL_S = 5;
const TOKEN = 'trigger-share-token-7c2e';
const LOG_CREDENTIAL = { id: 'shareLogCred0001', name: 'Messaging (delivery log)' };
const TITLE = '## Many triggers on one token: shared listings';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sec = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '-');

/** A trigger workflow (on every conversation, or on `conversationId`) that logs each delivery into its own log conversation. */
function shareWorkflow(id, logId, conversationId = '') {
	const workflow = wf.triggerToLog('', logId);
	workflow.id = id;
	workflow.name = `Share ${id}`;
	workflow.nodes[0] = {
		...workflow.nodes[0],
		typeVersion: 2,
		parameters: {
			interval: INTERVAL_S,
			unit: 'seconds',
			conversationId: conversationId ? byId(conversationId) : '',
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

/** CPU seconds the process `pid` has used (user and system), from /proc; NaN where there is none. */
function cpuSeconds(pid) {
	try {
		const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
		return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 a second)
	} catch {
		return NaN;
	}
}

/** Scaled to an hour, from the first to the last request stamped. */
function perHour(list, idleS) {
	const span = (list.at(-1)?.at ?? 0) - (list[0]?.at ?? 0);
	return span < 1000
		? Math.round((list.length * 3600) / idleS)
		: Math.round(((list.length - 1) * 3_600_000) / span);
}

/**
 * One row: `on` (triggers, each with the conversation it watches, '' for all) idle for `idleS`, then
 * messages into `inboxes` (in turn) at `rate` for `flowS`; latency, lost and unmarked repeats.
 */
async function measureRow({
	sandbox,
	logService,
	session,
	pid,
	label,
	on,
	inboxes,
	idleS,
	flowS,
	rate,
	log,
}) {
	log(`${label}: ${on.length} trigger(s) active, idle for ${idleS} s\n`);
	sandbox.clearRequests();
	// When each request came (polled): the rate is read from the first to the last one, whole ticks.
	const stamp = setInterval(() => {
		for (const r of sandbox.requests) r.at ??= Date.now();
	}, 20);
	const cpuBefore = cpuSeconds(pid);
	await sleep(idleS * 1000);
	const idleCpu = ((cpuSeconds(pid) - cpuBefore) * INTERVAL_S) / idleS;
	clearInterval(stamp);
	const idle = sandbox.requests.filter((r) => r.method === 'GET' && r.at !== undefined);
	const lists = idle.filter((r) => r.path === '/v1/messages');
	log(`${label}: ${on.length} trigger(s), messages flowing ${flowS} s at ${rate}/s\n`);
	const created = new Map(); // id -> { at, conversation }
	const begin = Date.now();
	const period = 1000 / rate;
	for (let n = 0; n < Math.round(rate * flowS); n++) {
		// Each at another point of the interval (golden-ratio steps), not in step with the checks.
		const wait = begin + (n + ((n * 0.618034) % 1)) * period - Date.now();
		if (wait > 0) await sleep(wait);
		const conversation = inboxes[n % inboxes.length];
		const m = sandbox.store.sendMessage('ct_ann', {
			conversation_id: conversation,
			message: `m ${n}`,
		});
		created.set(m.id, { at: Date.now(), conversation });
	}
	const wanted = (t) => [...created].filter(([, m]) => !t.watches || m.conversation === t.watches);
	const deadline = Date.now() + 90_000;
	while (Date.now() < deadline) {
		if (on.every((t) => wanted(t).every(([id]) => seenIn(logService.store, t.log).has(id)))) break;
		await sleep(1000);
	}
	await sleep(3000);
	const latencies = [];
	let worstP95 = 0;
	let lost = 0;
	let unmarked = 0;
	let deliveries = 0;
	const startsOf = new Map(); // message id -> the starts of the executions that received it first
	for (const t of on) {
		const seen = seenIn(logService.store, t.log);
		const own = wanted(t);
		deliveries += own.length;
		const starts = own.length > 0 ? await session.executionStarts(t.id) : new Map();
		const mine = [];
		for (const [id, { at }] of own) {
			const delivered = seen.get(id) ?? [];
			if (delivered.length === 0) lost += 1;
			unmarked += delivered.slice(1).filter((d) => !d.redelivery).length;
			const start = starts.get(delivered[0]?.execution);
			if (!start) continue;
			mine.push(start - at);
			startsOf.set(id, [...(startsOf.get(id) ?? []), start]);
		}
		mine.sort((a, b) => a - b);
		if (mine.length > 0) worstP95 = Math.max(worstP95, percentile(mine, 95));
		latencies.push(...mine);
	}
	latencies.sort((a, b) => a - b);
	// How far apart n8n started the executions of one message (the triggers checked on one tick).
	const spreads = [...startsOf.values()]
		.filter((starts) => starts.length > 1)
		.map((starts) => Math.max(...starts) - Math.min(...starts))
		.sort((a, b) => a - b);
	const row = {
		count: on.length,
		flowS,
		watch: on[0]?.watches ? 'one conversation each' : 'every conversation',
		idleS,
		listsPerHour: perHour(lists, idleS),
		requestsPerHour: perHour(idle, idleS),
		idleCpu,
		messages: created.size,
		expected: deliveries,
		deliveries: latencies.length,
		p50: percentile(latencies, 50),
		p95: percentile(latencies, 95),
		worstP95,
		startSpreadP50: percentile(spreads, 50),
		lost,
		unmarked,
	};
	log(`${label}: ${JSON.stringify(row)}\n`);
	return row;
}

/** One build (`dist`: another build's compiled code over the package's) through every row. */
async function measureBuild({
	label,
	dist,
	counts,
	conversations,
	idleS,
	flowS,
	rate,
	conversationRate,
	log,
}) {
	const work = path.join(n8n.ROOT, '.bench', 'trigger-share', label);
	const user = path.join(work, 'user');
	fs.rmSync(work, { recursive: true, force: true });
	fs.mkdirSync(user, { recursive: true });
	const { tarball } = n8n.packPackage(work);
	const installed = n8n.installPackage(user, tarball);
	if (dist) fs.cpSync(dist, path.join(installed, 'dist'), { recursive: true });
	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: 'demo' }).start();
	const logService = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: 'demo',
		recordRequests: false,
	}).start();
	const inbox = sandbox.store.createConversation({ contact_id: 'ct_ann' }).id;
	const trigger = (i, watches) => {
		const id = `${watches ? 'conv' : 'share'}${String(i).padStart(3, '0')}000000000`.slice(0, 16);
		const logId = logService.store.createConversation({ contact_id: 'ct_bob' }).id;
		return { id, log: logId, watches, workflow: shareWorkflow(id, logId, watches) };
	};
	const every = Array.from({ length: Math.max(0, ...counts) }, (_, i) => trigger(i, ''));
	const own = Array.from({ length: conversations }, (_, i) => {
		const conversation = sandbox.store.createConversation({ contact_id: 'ct_ann' }).id;
		// Two messages a minute apart: the trigger's first check sees that the service lists newest first.
		// Hours ago, each conversation's at its own time: the look-back window below the newest holds few.
		for (const ago of [3660 + 120 * i, 3600 + 120 * i])
			sandbox.store.sendMessage(
				'ct_ann',
				{ conversation_id: conversation, message: `${ago} s before` },
				{ createdAt: sandbox.store.now() - ago },
			);
		return trigger(i, conversation);
	});
	let app;
	const rows = [];
	try {
		const logCredential = { ...wf.credential(`${logService.url}/`, TOKEN), ...LOG_CREDENTIAL };
		await n8n.importCredentials(user, work, [
			wf.credential(`${sandbox.url}/`, TOKEN),
			logCredential,
		]);
		await n8n.importWorkflows(
			user,
			path.join(work, 'workflows'),
			[...every, ...own].map((t) => t.workflow),
		);
		app = await n8n.startN8n(user);
		const session = await n8n.ownerSession(app.url);
		const toggle = async (t, action) => {
			const { body: got } = await session.rest('GET', `/workflows/${t.id}`);
			const { status, body } = await session.rest('POST', `/workflows/${t.id}/${action}`, {
				versionId: got.data.versionId,
			});
			if (status !== 200)
				throw new Error(`${action} ${t.id}: ${JSON.stringify(body).slice(0, 300)}`);
		};
		const settings = { sandbox, logService, session, pid: app.child.pid, label, idleS, log };
		let active = 0;
		for (const count of counts) {
			for (; active < count; active++) await toggle(every[active], 'activate');
			await sleep(10_000); // every new trigger's first check; the ticks settle
			const on = every.slice(0, count);
			rows.push(await measureRow({ ...settings, on, inboxes: [inbox], flowS, rate }));
		}
		if (own.length > 0) {
			for (const t of every.slice(0, active)) await toggle(t, 'deactivate');
			for (const t of own) await toggle(t, 'activate');
			await sleep(20_000); // first checks, the list order seen, then one tick
			const inboxes = own.map((t) => t.watches);
			rows.push(
				await measureRow({
					...settings,
					on: own,
					inboxes,
					flowS: 2 * flowS,
					rate: conversationRate,
				}),
			);
		}
	} finally {
		await app?.stop();
		await sandbox.stop();
		await logService.stop();
	}
	return rows;
}

function shareSection(results, { started, compared }) {
	const lines = [
		TITLE,
		'',
		`Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} (${Math.round(os.totalmem() / 2 ** 30)} GB), Node ${process.version}, ${n8nVersion()}, regular mode: \`npm run bench -- --only share${compared ? ` --compare ${compared.ref}` : ''}\` (scripts/bench/triggerShare.js).`,
		`Trigger workflows (version 2, every ${INTERVAL_S} s, one token) active together in one \`n8n start\`, against the sandbox on loopback without added latency: 1, 20 and 100 on every conversation, then (those stopped) 100 each on a conversation of its own. Idle: the GET requests the sandbox counted over ${results[0]?.rows[0]?.idleS ?? '-'} s, as a rate from the first to the last one, scaled to an hour, and the CPU time n8n's main process used (user and system) per ${INTERVAL_S} s. Flowing: messages created at a steady rate, each at another point of the interval (into one conversation, which every trigger receives; or in turn into the 100 conversations, each received by its own trigger), for ${results[0]?.rows[0]?.flowS ?? '-'} s and twice that for the 100 conversations; latency from a message's creation to the start of the execution that received it (n8n's startedAt); start spread: how far apart n8n started the executions of one message (from the first trigger's to the last one's). Goals (#44): list requests an hour independent of the number of triggers within 10%; p95 ≤ interval + 2 s; 0 lost, 0 unmarked repeats.`,
		'',
		"| Build | Triggers | Watching | List requests/h idle | All GETs/h idle | n8n CPU per 5 s, idle | Messages | Deliveries expected | Delivered | p50 | p95 | Worst trigger's p95 | ≤ 7 s | Start spread p50 | Lost | Unmarked repeats |",
		'|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|---:|---:|',
	];
	for (const { label, rows } of results)
		for (const r of rows)
			lines.push(
				`| ${label} | ${r.count} | ${r.watch} | ${r.listsPerHour} | ${r.requestsPerHour} | ${Number.isFinite(r.idleCpu) ? `${Math.round(r.idleCpu * 1000)} ms` : '-'} | ${r.messages} | ${r.expected} | ${r.deliveries} | ${sec(r.p50)} | ${sec(r.p95)} | ${sec(r.worstP95)} | ${r.worstP95 <= (INTERVAL_S + 2) * 1000 ? 'yes' : 'no'} | ${sec(r.startSpreadP50)} | ${r.lost} | ${r.unmarked} |`,
			);
	lines.push(
		'',
		'How the listing is shared, and what is not: [docs/exactly-once.md](docs/exactly-once.md#many-triggers-on-one-account).',
		'',
	);
	return lines.join('\n');
}

function n8nVersion() {
	try {
		return `n8n ${require(path.join(n8n.ROOT, '.n8n-runtime/node_modules/n8n/package.json')).version}`;
	} catch {
		return 'n8n';
	}
}

/** The bench: REF first when comparing, then the current build. */
async function benchShare({
	compare,
	counts = [1, 20, 100],
	conversations = 100,
	idleS = 45,
	flowS = 30,
	rate = 0.2,
	conversationRate = 1,
	started = new Date(),
	log = () => {},
} = {}) {
	n8n.ensureN8n();
	buildPackage();
	const compared = compare ? buildRef(compare) : undefined;
	const results = [];
	try {
		const settings = { counts, conversations, idleS, flowS, rate, conversationRate, log };
		if (compared) {
			const label = `before (${compared.commit.slice(0, 7)})`;
			results.push({
				label,
				rows: await measureBuild({ ...settings, label: 'before', dist: compared.dist }),
			});
			results[0].label = label;
		}
		results.push({
			label: compared ? 'after' : 'current',
			rows: await measureBuild({ ...settings, label: 'after' }),
		});
	} finally {
		compared?.cleanup();
	}
	return { results, section: shareSection(results, { started, compared }) };
}

if (require.main === module) {
	const args = process.argv.slice(2);
	const valueOf = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
	benchShare({
		compare: valueOf('--compare'),
		counts: valueOf('--counts')?.split(',').map(Number),
		conversations: valueOf('--conversations') ? Number(valueOf('--conversations')) : undefined,
		conversationRate: valueOf('--conversation-rate')
			? Number(valueOf('--conversation-rate'))
			: undefined,
		idleS: valueOf('--idle') ? Number(valueOf('--idle')) : undefined,
		flowS: valueOf('--flow') ? Number(valueOf('--flow')) : undefined,
		rate: valueOf('--rate') ? Number(valueOf('--rate')) : undefined,
		log: (text) => process.stderr.write(text),
	})
		.then(({ section }) => console.log(section))
		.catch((error) => {
			console.error(error);
			process.exit(1);
		});
}

module.exports = { benchShare, shareSection, TITLE };
