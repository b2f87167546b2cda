#!/usr/bin/env node
'use strict';
/**
 * `npm run bench`: the Messaging node (A) against n8n's HTTP Request node (B) and the floor of any node (F,
 * scripts/bench/floor-node) in the same real n8n, and a plain undici script (C), on the sandbox service with
 * 20-30 ms of latency per request, then again under a rate limit. Writes BENCHMARKS.md. Options:
 * --repeats N (default 3), --quick (fewer items, for a smoke run), --only get,mute,send,getMany,trigger,micro
 * (some workloads), --variants A,A32,F8,F32,B,Bretry,C1,C8,C32,Call (some variants), --idle-only (no
 * rate-limited runs), --cpu-prof DIR (V8 CPU profiles of each n8n run into DIR).
 * A partial run (--quick, --only, --variants, --idle-only) writes .bench/BENCHMARKS.partial.md instead.
 */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const n8n = require('./lib/n8n');
const { createSandbox } = require('../sandbox/server');

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const REPEATS = Number(args[args.indexOf('--repeats') + 1]) || (QUICK ? 1 : 3);
const listArg = (name) => (args.includes(name) ? args[args.indexOf(name) + 1].split(',') : null);
const ONLY = listArg('--only');
const VARIANTS = listArg('--variants');
const IDLE_ONLY = args.includes('--idle-only');
const CPU_PROF = args.includes('--cpu-prof') ? path.resolve(args[args.indexOf('--cpu-prof') + 1]) : null;
const PARTIAL = QUICK || !!ONLY || !!VARIANTS || IDLE_ONLY;
const wanted = (workload) => !ONLY || ONLY.includes(workload);
const wantedVariant = (variant) => !VARIANTS || VARIANTS.includes(variant.replace(' ', ''));
const N = QUICK ? { get: 200, mute: 200, send: 100, many: 1000, poll: 100 } : { get: 2000, mute: 2000, send: 1000, many: 10_000, poll: 1000 };
const LATENCY_MS = 20;
/** Plus 0 to 10 ms at random per request, as on a real network (what reorders parallel sends). */
const JITTER_MS = 10;
/** What a request waits on average: the floor for requests that go one (or a few) at a time. */
const MEAN_LATENCY_MS = LATENCY_MS + JITTER_MS / 2;
const RATE = { perSecond: 100, burst: 10 };
const TOKEN = 'bench-token';
const WORK = path.join(n8n.ROOT, '.bench');
const USER = path.join(WORK, 'user');
const CREDENTIAL = { messagingApi: { id: 'benchMessagingCred', name: 'Messaging (bench)' } };

const pad = (n) => String(n).padStart(8, '0');
const messageIds = Array.from({ length: N.get }, (_, i) => `msg_${pad(i + 1)}`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// ---------- the service ----------

function seed(store) {
	store.addContact({ id: 'ct_ann' });
	const getConversation = store.createConversation({ contact_id: 'ct_ann' }).id; // conv_00000001: the messages to Get
	const sendConversation = store.createConversation({ contact_id: 'ct_ann' }).id; // conv_00000002: Send target
	const manyConversation = store.createConversation({ contact_id: 'ct_ann' }).id; // conv_00000003: Get Many
	for (let i = 0; i < N.get; i++) store.sendMessage('ct_ann', { conversation_id: getConversation, message: `get ${i}` });
	for (let i = 0; i < N.many; i++) store.sendMessage('ct_ann', { conversation_id: manyConversation, message: `many ${i}` });
	const muteIds = [];
	for (let i = 0; i < N.mute; i++) muteIds.push(store.createConversation({ contact_id: 'ct_ann' }).id);
	return { sendConversation, manyConversation, muteIds };
}

// ---------- workflows ----------

const byId = (value) => ({ __rl: true, mode: 'id', value });

function workflow(id, target, inputIds, settings = {}) {
	const nodes = [{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }];
	const connections = {};
	let previous = 'Start';
	if (inputIds) {
		nodes.push(
			{ id: 'input', name: 'Input', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [200, 0], parameters: { mode: 'raw', jsonOutput: JSON.stringify({ ids: inputIds }), options: {} } },
			{ id: 'split', name: 'Items', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [400, 0], parameters: { fieldToSplitOut: 'ids', options: {} } },
		);
		connections.Start = { main: [[{ node: 'Input', type: 'main', index: 0 }]] };
		connections.Input = { main: [[{ node: 'Items', type: 'main', index: 0 }]] };
		previous = 'Items';
	}
	nodes.push({ id: 'target', name: 'Target', position: [600, 0], ...target, ...settings });
	connections[previous] = { main: [[{ node: 'Target', type: 'main', index: 0 }]] };
	return { id, name: id, nodes, connections, active: false, settings: { executionOrder: 'v1' }, pinData: {} };
}

function messagingNode(parameters, parallel) {
	return {
		type: 'n8n-nodes-messaging.messaging',
		typeVersion: 1,
		credentials: CREDENTIAL,
		parameters: { ...parameters, options: { ...(parallel ? { parallelRequests: parallel } : {}) } },
	};
}

/** F: the least any n8n node can do per item (scripts/bench/floor-node): one expression, one httpRequest. */
function floorNode(parameters, inFlight) {
	return {
		type: 'n8n-nodes-bench-floor.benchFloor',
		typeVersion: 1,
		parameters: { method: 'GET', authorization: `Bearer ${TOKEN}`, ...parameters, inFlight },
	};
}

/** B authenticates the way a user would store a token: a Header Auth credential. */
const HEADER_CREDENTIAL = { httpHeaderAuth: { id: 'benchHeaderAuth01', name: 'Messaging token (Header Auth)' } };

function httpNode(baseUrl, parameters) {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		credentials: HEADER_CREDENTIAL,
		parameters: {
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			options: {},
			...parameters,
			url: `=${baseUrl}/v1/${parameters.url}`,
		},
	};
}

function formBody(fields) {
	return { sendBody: true, contentType: 'form-urlencoded', bodyParameters: { parameters: Object.entries(fields).map(([name, value]) => ({ name, value })) } };
}

const CONTINUE = { onError: 'continueRegularOutput' };
const RETRY = { retryOnFail: true }; // n8n's defaults: 3 tries, 1 s apart, the whole node each time

function variants(baseUrl, service) {
	const sendItems = Array.from({ length: N.send }, (_, i) => i);
	const w = {
		get: {
			items: messageIds,
			A: (p) => messagingNode({ resource: 'message', operation: 'get', messageId: byId('={{ $json.ids }}') }, p),
			F: (p) => floorNode({ url: `=${baseUrl}/v1/messages/{{ $json.ids }}` }, p),
			B: httpNode(baseUrl, { method: 'GET', url: 'messages/{{ $json.ids }}' }),
		},
		mute: {
			items: service.muteIds,
			A: (p) => messagingNode({ resource: 'conversation', operation: 'mute', conversationId: byId('={{ $json.ids }}') }, p),
			F: (p) => floorNode({ method: 'PUT', url: `=${baseUrl}/v1/conversations/{{ $json.ids }}`, body: 'is_muted=true' }, p),
			B: httpNode(baseUrl, { method: 'PUT', url: 'conversations/{{ $json.ids }}', ...formBody({ is_muted: 'true' }) }),
		},
		send: {
			items: sendItems,
			A: (p) => messagingNode({ resource: 'message', operation: 'send', conversationId: byId(service.sendConversation), text: '=n{{ $json.ids }}' }, p),
			B: httpNode(baseUrl, { method: 'POST', url: 'messages', ...formBody({ conversation_id: service.sendConversation, message: '=n{{ $json.ids }}' }) }),
		},
		getMany: {
			items: null,
			A: () => messagingNode({ resource: 'message', operation: 'getAll', returnAll: true, filters: { conversationId: byId(service.manyConversation) } }),
			B: httpNode(baseUrl, {
				method: 'GET',
				url: 'messages',
				sendQuery: true,
				queryParameters: { parameters: [{ name: 'conversation_id', value: service.manyConversation }, { name: 'limit', value: '100' }] },
				options: {
					pagination: {
						pagination: {
							paginationMode: 'updateAParameterInEachRequest',
							parameters: { parameters: [{ type: 'qs', name: 'starting_after', value: '={{ $response.body.data.at(-1).id }}' }] },
							paginationCompleteWhen: 'other',
							completeExpression: '={{ !$response.body.has_more }}',
						},
					},
				},
			}),
		},
	};
	return w;
}

// ---------- running ----------

function watchPeakRss(child) {
	let peak = 0;
	const read = () => {
		try {
			const kb = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
			if (kb > peak) peak = kb;
		} catch {
			// the process has ended
		}
	};
	const timer = setInterval(read, 50);
	child.on('exit', () => clearInterval(timer));
	return () => peak;
}

async function runN8n(sandbox, id) {
	let peak = () => 0;
	const before = sandbox.stats.requests;
	let run;
	let failedNode = false;
	try {
		run = await n8n.executeWorkflow(USER, id, {
			timeoutMs: 900_000,
			onSpawn: (child) => (peak = watchPeakRss(child)),
			env: CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF} --cpu-prof-name=${id}-${Date.now()}.cpuprofile` } : {},
		});
	} catch (error) {
		run = error.runData;
		failedNode = true;
	}
	const task = run?.data?.resultData?.runData?.Target?.at(-1);
	const tries = run?.data?.resultData?.runData?.Target?.length ?? 0;
	const output = task?.data?.main?.[0] ?? [];
	const wallMs = (run?.data?.resultData?.runData?.Target ?? []).reduce((sum, t) => sum + (t.executionTime ?? 0), 0);
	return {
		wallMs,
		requests: sandbox.stats.requests - before,
		failed: failedNode && output.length === 0 ? null : output.filter((i) => i.json?.error !== undefined).length,
		outputItems: output.length,
		nodeFailed: failedNode || !!task?.error,
		tries,
		rssPeakMb: Math.round(peak() / 1024),
	};
}

async function runUndici(sandbox, service, workload, items, concurrency) {
	const before = sandbox.stats.requests;
	const input = JSON.stringify({
		baseUrl: sandbox.url,
		token: TOKEN,
		workload,
		items: workload === 'getMany' ? Array.from({ length: N.many }) : items,
		concurrency,
		conversationId: workload === 'send' ? service.sendConversation : service.manyConversation,
	});
	const stdout = await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [path.join(__dirname, 'bench', 'undici-client.js'), input], { stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`undici client exited with ${code}`))));
	});
	const result = JSON.parse(stdout.trim().split('\n').at(-1));
	return { wallMs: result.wallMs, requests: sandbox.stats.requests - before, failed: result.failed, rssPeakMb: Math.round(result.rssPeakKb / 1024) };
}

/** Before each run: the service back to the same state (nothing sent, nothing muted). */
function reset(store, service) {
	for (const [id, m] of store.messages) if (m.conversation_id === service.sendConversation) store.messages.delete(id);
	for (const id of service.muteIds) store.conversations.set(id, { ...store.conversation(id), is_muted: false });
}

function sendOrder(store, service) {
	const stored = [...store.messages.values()].filter((m) => m.conversation_id === service.sendConversation).map((m) => Number(m.message.slice(1)));
	let outOfOrder = 0;
	let highest = -1;
	for (const n of stored) {
		if (n < highest) outOfOrder += 1;
		else highest = n;
	}
	return { stored: stored.length, outOfOrder, duplicates: stored.length - new Set(stored).size };
}

async function measure(label, times, fn) {
	const runs = [];
	for (let r = 0; r < times; r++) runs.push(await fn());
	const wall = runs.map((x) => x.wallMs);
	const summary = { ...runs[Math.floor(runs.length / 2)], wallMs: median(wall), spread: runs.length > 1 ? (Math.max(...wall) - Math.min(...wall)) / median(wall) : 0, runs: runs.length };
	process.stderr.write(`  ${label}: ${(summary.wallMs / 1000).toFixed(2)} s, ${summary.requests} requests, failed ${summary.failed ?? 'node failed'}${summary.outOfOrder !== undefined ? `, out of order ${summary.outOfOrder}, duplicates ${summary.duplicates}, stored ${summary.stored}` : ''}\n`);
	return summary;
}

// ---------- trigger and micro-benchmark (in-process, through n8n-core) ----------

async function triggerBench() {
	const { createTrigger } = require('../test/harness/n8n');
	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: 'none', latencyMs: LATENCY_MS, latencyJitterMs: JITTER_MS }).start();
	try {
		sandbox.store.addContact({ id: 'ct_ann' });
		sandbox.store.createConversation({ contact_id: 'ct_ann' });
		for (let i = 0; i < 5000; i++) sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: `old ${i}` }, { createdAt: 1_700_000_000 + i });
		const trigger = createTrigger({ credentials: { baseUrl: sandbox.url, accessToken: TOKEN, timestampUnit: 'auto', ownContactId: 'ct_me' } });
		await trigger.poll();
		const time = async () => {
			const before = sandbox.stats.requests;
			const started = performance.now();
			const result = await trigger.poll();
			return { wallMs: performance.now() - started, requests: sandbox.stats.requests - before, emitted: result?.[0]?.length ?? 0 };
		};
		const quiet = await time();
		for (let i = 0; i < N.poll; i++) sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: `new ${i}` });
		const busy = await time();
		return { quiet, busy, stateBytes: JSON.stringify(trigger.state()).length };
	} finally {
		await sandbox.stop();
	}
}

function microBench() {
	const { encodeForm } = require('../dist/nodes/shared/form');
	const { buildUrl } = require('../dist/nodes/shared/transport');
	const { withIsoTimestamps } = require('../dist/nodes/shared/timestamps');
	const { reactionsFromInput } = require('../dist/nodes/shared/reactions');
	const message = { id: 'msg_00000001', conversation_id: 'conv_1', contact: { id: 'ct_ann', username: 'ann', created_at: 1_700_000_000, last_active_at: 1_700_000_100 }, message: 'Hello & welcome', reactions: [{ like: ['ann'] }], attachments: [], read_at: null, created_at: 1_700_000_000, updated_at: null };
	const cases = {
		'URL of a Get (encoded id)': () => buildUrl('https://api.example.com/v1/', { path: ['messages', 'msg_00000001'] }),
		'form body of a Send (text, 2 attachments)': () => encodeForm({ conversation_id: 'conv_1', message: 'Hello & welcome 👋', attachments: [{ name: 'a.pdf' }, { name: 'b.png' }] }),
		'reactions rows to form body (3 names, 6 reactors)': () => encodeForm({ reactions: reactionsFromInput({ reaction: [{ name: 'like', reactors: 'ann, bob' }, { name: 'a&b', reactors: 'cy, dan' }, { name: '👍', reactors: 'ed, zoë' }] }) }),
		'ISO timestamps added to a message': () => withIsoTimestamps(message, 'auto'),
	};
	const results = {};
	for (const [name, fn] of Object.entries(cases)) {
		for (let i = 0; i < 20_000; i++) fn(); // warm up
		const rounds = 200_000;
		const started = process.hrtime.bigint();
		for (let i = 0; i < rounds; i++) fn();
		results[name] = Number(process.hrtime.bigint() - started) / 1000 / rounds;
	}
	return results;
}

// ---------- report ----------

function fmt(ms) {
	return ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`;
}

/** The issue's targets, each with its measured figure; rows missing from a narrowed run are left out. */
function targetRows(normal, limited, trigger) {
	const find = (rows, workload, key) => rows.find((r) => r.workload.startsWith(workload) && r.key === key);
	const rows = [];
	// `limit`: the target's bound; without one the row is a reference figure, with no verdict.
	const ratio = (label, a, b, limit) => {
		if (!a || !b) return;
		const value = a.wallMs / b.wallMs;
		rows.push([label, `${value.toFixed(2)} (${fmt(a.wallMs)} / ${fmt(b.wallMs)})`, limit === undefined ? '' : value <= limit ? 'met' : 'not met']);
	};
	for (const [workload, name] of [['Get message', 'Get'], ['Mute', 'Mute']]) {
		ratio(`A/C ≤ 1.3, ${name}, 8 in flight`, find(normal, workload, 'A'), find(normal, workload, 'C 8'), 1.3);
		ratio(`A/C ≤ 1.3, ${name}, 32 in flight`, find(normal, workload, 'A32'), find(normal, workload, 'C 32'), 1.3);
		ratio(`the floor, F/C, ${name}, 8 in flight (what any node in this n8n reaches)`, find(normal, workload, 'F8'), find(normal, workload, 'C 8'));
		ratio(`the floor, F/C, ${name}, 32 in flight`, find(normal, workload, 'F32'), find(normal, workload, 'C 32'));
		ratio(`the package's own cost, A/F, ${name}, 8 in flight`, find(normal, workload, 'A'), find(normal, workload, 'F8'));
		ratio(`the package's own cost, A/F, ${name}, 32 in flight`, find(normal, workload, 'A32'), find(normal, workload, 'F32'));
		ratio(`A (32) ≤ 1.5 × B, ${name}`, find(normal, workload, 'A32'), find(normal, workload, 'B'), 1.5);
	}
	ratio('A/C ≤ 1.3, Send, 1 in flight', find(normal, 'Send', 'A'), find(normal, 'Send', 'C 1'), 1.3);
	ratio('A/C ≤ 1.3, Get Many Return All, 1 in flight', find(normal, 'Get Many', 'A'), find(normal, 'Get Many', 'C 1'), 1.3);
	const send = find(normal, 'Send', 'A');
	if (send) rows.push(['Send: all delivered, in item order', `${send.stored} of ${N.send} stored, ${send.outOfOrder} out of order`, send.stored === N.send && send.outOfOrder === 0 ? 'met' : 'not met']);
	for (const row of limited.filter((r) => r.key === 'A' || r.key === 'A32')) {
		const ok = row.failed === 0 && !row.duplicates && row.ratio <= 1.25;
		rows.push([`rate limit, ${row.workload}, ${row.variant}: 0 failed, 0 duplicates, ≤ 1.25 × minimum`, `${row.failed} failed, ${row.duplicates ?? 0} duplicates, ${row.ratio.toFixed(2)} × minimum`, ok ? 'met' : 'not met']);
	}
	if (trigger) rows.push(['a poll with nothing new: one request', `${trigger.quiet.requests} request(s)`, trigger.quiet.requests === 1 ? 'met' : 'not met']);
	return rows;
}

function report({ normal, limited, trigger, micro, started, versions }) {
	const lines = [];
	const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
	lines.push('# Benchmarks', '');
	lines.push(`Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench\` on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}; Node ${process.version}, n8n ${versions.n8n}, n8n-nodes-messaging ${versions.package}.`);
	lines.push(`Service: the sandbox on loopback with ${LATENCY_MS} ms + 0–${JITTER_MS} ms (random) of latency per request. Medians of ${REPEATS} run(s) (spread = (max − min) / median of wall time); rate-limited runs once each.`, '');
	lines.push('- **A**: the Messaging node in n8n (`n8n execute`), Parallel Requests as shown (8 is the default, Send 1).');
	lines.push('- **B**: n8n\'s HTTP Request node 4.2 doing the same calls with a Header Auth credential, defaults (plus Continue On Fail so failed items are counted); **B+retry**: Retry On Fail on (n8n\'s defaults: 3 tries, 1 s apart, the whole node again), no Continue On Fail.');
	lines.push('- **C**: a plain undici script with keep-alive in its own process, at the concurrency shown ("all" = every request at once).');
	lines.push('- **F**: the floor of any node in n8n (`scripts/bench/floor-node`, benchmark only): per item one parameter expression and one `this.helpers.httpRequest` with a literal header, nothing else (no credential, checks, retries or error handling), at the concurrency shown.');
	lines.push('- Wall time is the node\'s own execution time as n8n records it (all tries for B+retry); requests are counted by the service; peak memory is the n8n process\'s peak RSS.', '');

	const targets = targetRows(normal, limited, trigger);
	if (targets.length) {
		lines.push('## Targets', '', '| target | measured | |', '|---|---|---|');
		for (const [target, measured, verdict] of targets) lines.push(`| ${target} | ${measured} | ${verdict} |`);
		lines.push('');
	}

	const table = (title, rows, minimum) => {
		lines.push(`## ${title}`, '');
		lines.push('| workload | variant | wall time | requests | items failed | out of order | duplicates | peak RSS | vs A | spread |');
		lines.push('|---|---|---|---|---|---|---|---|---|---|');
		for (const row of rows) {
			const ratio = row.ratio === undefined ? '' : `${row.ratio.toFixed(2)}×`;
			const failed = row.failed === null ? 'node failed' : row.failed;
			lines.push(`| ${row.workload} | ${row.variant} | ${fmt(row.wallMs)} | ${row.requests} | ${failed} | ${row.outOfOrder ?? ''} | ${row.duplicates ?? ''} | ${row.rssPeakMb ? `${row.rssPeakMb} MB` : ''} | ${ratio} | ${row.spread ? `${(row.spread * 100).toFixed(0)}%` : ''} |`);
		}
		if (minimum) lines.push('', minimum);
		lines.push('');
	};
	table(`Idle service (${LATENCY_MS}–${LATENCY_MS + JITTER_MS} ms latency)`, normal);
	table(
		`Rate-limited service (${RATE.perSecond} requests/s token bucket, burst ${RATE.burst}, 429 with Retry-After)`,
		limited,
		`Theoretical minimum: the larger of the rate limit's (${N.get} requests ${((N.get - RATE.burst) / RATE.perSecond).toFixed(1)} s, ${N.send} requests ${((N.send - RATE.burst) / RATE.perSecond).toFixed(1)} s, ${N.many / 100} pages ${((N.many / 100 - RATE.burst) / RATE.perSecond).toFixed(2)} s) and, where that is not what binds (Send and Get Many go one request at a time), the fastest client's time on the idle service at the same concurrency: C's row in the idle table (at least ${MEAN_LATENCY_MS} ms of mean latency per request, plus the service's own work). "vs A" is the variant's wall time over A's; on A's rows it is A's wall time over that minimum.`,
	);
	if (trigger) {
		lines.push(`## Trigger poll (the real \`poll()\` through n8n-core's PollContext, ${LATENCY_MS}–${LATENCY_MS + JITTER_MS} ms latency, 5,000 messages of history)`, '');
		lines.push('| poll | wall time | requests | messages emitted |', '|---|---|---|---|');
		lines.push(`| nothing new | ${(trigger.quiet.wallMs / 1000).toFixed(3)} s | ${trigger.quiet.requests} | ${trigger.quiet.emitted} |`);
		lines.push(`| ${N.poll} new | ${(trigger.busy.wallMs / 1000).toFixed(3)} s | ${trigger.busy.requests} | ${trigger.busy.emitted} |`);
		lines.push('', `Stored state after these polls: ${trigger.stateBytes} bytes.`, '');
	}
	if (micro) {
		lines.push('## Per-item work without the network (micro-benchmark)', '', '| work | µs per item |', '|---|---|');
		for (const [name, us] of Object.entries(micro)) lines.push(`| ${name} | ${us.toFixed(2)} |`);
		lines.push('');
	}
	return lines.join('\n');
}

async function main() {
	const started = new Date();
	n8n.ensureN8n();
	execFileSync(process.execPath, [path.join(n8n.ROOT, 'node_modules/gulp/bin/gulp.js'), 'build'], { cwd: n8n.ROOT, stdio: 'ignore' });
	fs.rmSync(WORK, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });
	const { tarball } = n8n.packPackage(WORK);
	n8n.installPackage(USER, tarball);
	n8n.installFolderPackage(USER, path.join(__dirname, 'bench', 'floor-node'));

	let service;
	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: (store) => (service = seed(store)), latencyMs: LATENCY_MS, latencyJitterMs: JITTER_MS, recordRequests: false }).start();
	const { store } = sandbox;
	try {
		const credentialFile = path.join(WORK, 'credential.json');
		fs.writeFileSync(
			credentialFile,
			JSON.stringify([
				{ id: CREDENTIAL.messagingApi.id, name: CREDENTIAL.messagingApi.name, type: 'messagingApi', data: { baseUrl: sandbox.url, accessToken: TOKEN, timestampUnit: 'seconds', ownContactId: '' } },
				{ id: HEADER_CREDENTIAL.httpHeaderAuth.id, name: HEADER_CREDENTIAL.httpHeaderAuth.name, type: 'httpHeaderAuth', data: { name: 'Authorization', value: `Bearer ${TOKEN}` } },
			]),
		);
		await n8n.n8nCli(USER, ['import:credentials', `--input=${credentialFile}`]);
		const w = variants(sandbox.url, service);
		const workflows = [];
		const ids = {};
		for (const [name, spec] of Object.entries(w)) {
			const input = spec.items;
			const add = (key, target, settings) => {
				const id = `bench${name}${key}`.replace(/[^A-Za-z0-9]/g, '').slice(0, 16).padEnd(16, '0');
				ids[`${name}:${key}`] = id;
				workflows.push(workflow(id, target, input, settings));
			};
			add('A', spec.A(), CONTINUE);
			if (name === 'get' || name === 'mute') {
				add('A32', spec.A(32), CONTINUE);
				add('F8', spec.F(8));
				add('F32', spec.F(32));
			}
			add('B', spec.B, CONTINUE);
			add('Bretry', spec.B, RETRY);
		}
		const dir = path.join(WORK, 'workflows');
		fs.mkdirSync(dir);
		for (const wf of workflows) fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf));
		await n8n.n8nCli(USER, ['import:workflow', '--separate', `--input=${dir}`]);

		const one = async (workload, variant, limitedRun) => {
			reset(store, service);
			const spec = w[workload];
			let result;
			if (variant.startsWith('C')) {
				const concurrency = variant === 'C all' ? 'unbounded' : Number(variant.slice(2));
				result = await runUndici(sandbox, service, workload, spec.items, concurrency);
			} else {
				result = await runN8n(sandbox, ids[`${workload}:${variant.replace(/ .*/, '')}`]);
			}
			if (workload === 'send') Object.assign(result, sendOrder(store, service));
			return result;
		};

		const plan = [
			['get', ['A', 'A32', 'F8', 'F32', 'B', 'C 8', 'C 32', 'C all']],
			['mute', ['A', 'A32', 'F8', 'F32', 'B', 'C 8', 'C 32', 'C all']],
			['send', ['A', 'B', 'C 1', 'C all']],
			['getMany', ['A', 'B', 'C 1']],
		];
		const limitedPlan = [
			['get', ['A', 'A32', 'B', 'Bretry', 'C 8']],
			['mute', ['A', 'A32', 'B', 'Bretry', 'C 8']],
			['send', ['A', 'B', 'Bretry', 'C 1']],
			['getMany', ['A', 'B', 'C 1']],
		];
		const label = { A: 'A (8)', A32: 'A (32)', F8: 'F (8)', F32: 'F (32)', B: 'B', Bretry: 'B+retry', 'C 1': 'C (1)', 'C 8': 'C (8)', 'C 32': 'C (32)', 'C all': 'C (all)' };
		const sendLabel = { A: 'A (1)' };
		const rowsOf = async (planned, times, limitedRun, idleRows = []) => {
			const rows = [];
			for (const [workload, all] of planned) {
				const list = all.filter(wantedVariant);
				if (!wanted(workload) || list.length === 0) continue;
				const title = { get: `Get message × ${N.get}`, mute: `Mute conversation × ${N.mute}`, send: `Send × ${N.send}`, getMany: `Get Many, Return All, ${N.many}` }[workload];
				const byVariant = {};
				for (const variant of list) {
					const name = (workload === 'send' && sendLabel[variant]) || (workload === 'getMany' && variant === 'A' ? 'A' : label[variant]);
					const result = await measure(`${limitedRun ? 'limited ' : ''}${workload} ${name}`, times, () => one(workload, variant, limitedRun));
					byVariant[variant] = result;
					rows.push({ workload: title, variant: name, ...result, key: variant });
				}
				const a = byVariant.A;
				const requests = { get: N.get, mute: N.mute, send: N.send, getMany: N.many / 100 }[workload];
				// The floor: what the rate limit allows, or, when that is not what binds (requests one or a few at a
				// time), the fastest client's time on the idle service at the same concurrency (C: latency plus the
				// service's own work); the mean latency per round when C was not run.
				const inFlight = { A: workload === 'get' || workload === 'mute' ? 8 : 1, A32: 32 };
				const idleC = (key) => idleRows.find((r) => r.workload === title && r.key === `C ${inFlight[key]}`)?.wallMs;
				const minimumMs = (key) =>
					Math.max(
						(Math.max(0, requests - RATE.burst) / RATE.perSecond) * 1000,
						idleC(key) ?? Math.ceil(requests / inFlight[key]) * MEAN_LATENCY_MS,
					);
				for (const row of rows.filter((r) => r.workload === title)) {
					if (limitedRun && (row.key === 'A' || row.key === 'A32')) row.ratio = row.wallMs / minimumMs(row.key);
					else if (row.key !== 'A' && a) row.ratio = row.wallMs / a.wallMs;
				}
			}
			return rows;
		};
		process.stderr.write(`Idle service, ${REPEATS} run(s) each:\n`);
		const normal = await rowsOf(plan, REPEATS, false);
		sandbox.set({ rateLimit: RATE });
		process.stderr.write(`Rate-limited service, once each:\n`);
		const limited = IDLE_ONLY ? [] : await rowsOf(limitedPlan, 1, true, normal);
		sandbox.set({ rateLimit: null });
		const trigger = wanted('trigger') ? await triggerBench() : null;
		const micro = wanted('micro') ? microBench() : null;
		const versions = { n8n: require(path.join(n8n.ROOT, '.n8n-runtime/node_modules/n8n/package.json')).version, package: require('../package.json').version };
		const markdown = report({ normal, limited, trigger, micro, started, versions });
		fs.writeFileSync(path.join(n8n.ROOT, PARTIAL ? '.bench/BENCHMARKS.partial.md' : 'BENCHMARKS.md'), markdown);
		console.log(markdown);
	} finally {
		await sandbox.stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
