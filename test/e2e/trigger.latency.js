#!/usr/bin/env node
'use strict';
/**
 * Latency of the Messaging Trigger in a real `n8n start`: from a message's creation at the service to
 * the start of the workflow execution that receives it, p50 and p95 over N messages created at random
 * moments, for version 2 every 5 s and every 15 s and for version 1 polling every minute (three active
 * workflows, each on its own conversation). Also the requests per hour of each while idle.
 *
 *   bash scripts/toolchain.sh node test/e2e/trigger.latency.js [--messages 100] [--span 360] [--idle 120]
 */
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/lib/n8n');
const { buildPackage } = require('../../scripts/lib/build');
const { createSandbox } = require('../../sandbox/server');
const wf = require('./workflows');
const { percentile } = require('../../scripts/lib/percentile');

const args = Object.fromEntries(
	process.argv
		.slice(2)
		.join(' ')
		.split('--')
		.filter(Boolean)
		.map((a) => a.trim().split(/\s+/)),
);
const MESSAGES = Number(args.messages ?? 100);
const SPAN_S = Number(args.span ?? 360);
const IDLE_S = Number(args.idle ?? 120);
const WORK = path.join(n8n.ROOT, '.e2e', 'trigger-latency');
const USER = path.join(WORK, 'user');
const TOKEN = 'latency-token-5e0a';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function workflowFor(mode, inboxId, logId) {
	const workflow = wf.triggerToLog(inboxId, logId);
	workflow.id = `latency${mode.key}000000`.slice(0, 16);
	workflow.name = `Latency ${mode.label}`;
	const trigger = workflow.nodes[0];
	if (mode.version === 2) {
		trigger.typeVersion = 2;
		trigger.parameters = {
			interval: mode.seconds,
			unit: 'seconds',
			conversationId: { __rl: true, mode: 'id', value: inboxId },
			options: {},
		};
	}
	workflow.nodes[1].parameters.text = '=seen {{ $json.id }} x{{ $execution.id }}';
	return workflow;
}

async function main() {
	n8n.ensureN8n();
	buildPackage();
	fs.rmSync(WORK, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });
	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: 'demo' }).start();
	const { store } = sandbox;
	const modes = [
		{ key: 'V2s5', label: 'v2 every 5 s', version: 2, seconds: 5 },
		{ key: 'V2s15', label: 'v2 every 15 s', version: 2, seconds: 15 },
		{ key: 'V1min', label: 'v1 polling every minute', version: 1, seconds: 60 },
	];
	for (const mode of modes) {
		mode.inbox = store.createConversation({ contact_id: 'ct_ann' }).id;
		mode.log = store.createConversation({ contact_id: 'ct_bob' }).id;
		mode.created = new Map(); // message id -> creation time (ms)
	}
	const checksOf = (mode) =>
		sandbox.requests.filter(
			(r) => r.method === 'GET' && r.path === '/v1/messages' && r.query.includes(mode.inbox),
		).length;

	let app;
	try {
		const { tarball } = n8n.packPackage(WORK);
		n8n.installPackage(USER, tarball);
		const credentialsFile = path.join(WORK, 'credentials.json');
		fs.writeFileSync(credentialsFile, JSON.stringify([wf.credential(`${sandbox.url}/`, TOKEN)]));
		await n8n.n8nCli(USER, ['import:credentials', `--input=${credentialsFile}`]);
		const dir = path.join(WORK, 'workflows');
		fs.mkdirSync(dir);
		for (const mode of modes) {
			mode.workflow = workflowFor(mode, mode.inbox, mode.log);
			fs.writeFileSync(path.join(dir, `${mode.key}.json`), JSON.stringify(mode.workflow));
		}
		await n8n.n8nCli(USER, ['import:workflow', '--separate', `--input=${dir}`]);
		for (const mode of modes) await n8n.publishWorkflow(USER, mode.workflow.id);
		app = await n8n.startN8n(USER);
		const session = await n8n.ownerSession(app.url);
		console.log(`latency: n8n on ${app.url}; idle for ${IDLE_S} s`);

		await sleep(10_000);
		const idleFrom = Object.fromEntries(modes.map((m) => [m.key, checksOf(m)]));
		await sleep(IDLE_S * 1000);
		for (const mode of modes)
			mode.requestsPerHour = Math.round(((checksOf(mode) - idleFrom[mode.key]) * 3600) / IDLE_S);

		console.log(
			`latency: creating ${MESSAGES} messages per workflow at random moments over ${SPAN_S} s`,
		);
		const moments = [];
		for (const mode of modes)
			for (let i = 0; i < MESSAGES; i++) moments.push({ at: Math.random() * SPAN_S * 1000, mode });
		moments.sort((a, b) => a.at - b.at);
		const begin = Date.now();
		for (const { at, mode } of moments) {
			const wait = begin + at - Date.now();
			if (wait > 0) await sleep(wait);
			const message = store.sendMessage('ct_ann', {
				conversation_id: mode.inbox,
				message: `latency ${mode.key}`,
			});
			mode.created.set(message.id, Date.now());
		}
		const seenOf = (mode) => {
			const seen = new Map();
			for (const m of store.listMessages({ conversation_id: mode.log })) {
				const match = /^seen (\S+) x(\S+)$/.exec(m.message);
				if (match && !seen.has(match[1])) seen.set(match[1], match[2]);
			}
			return seen;
		};
		const deadline = Date.now() + 180_000;
		while (Date.now() < deadline && !modes.every((m) => seenOf(m).size >= m.created.size))
			await sleep(1000);

		const executions = new Map();
		for (const mode of modes)
			for (const [id, start] of await session.executionStarts(mode.workflow.id))
				executions.set(id, start);
		console.log('');
		console.log('| Trigger | Messages | Delivered | p50 | p95 | max | Requests per hour, idle |');
		console.log('|---|---:|---:|---:|---:|---:|---:|');
		for (const mode of modes) {
			const seen = seenOf(mode);
			const latencies = [...mode.created]
				.filter(([id]) => seen.has(id) && executions.has(seen.get(id)))
				.map(([id, createdAt]) => executions.get(seen.get(id)) - createdAt)
				.sort((a, b) => a - b);
			const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
			console.log(
				`| ${mode.label} | ${mode.created.size} | ${latencies.length} | ${s(percentile(latencies, 50))} | ${s(percentile(latencies, 95))} | ${s(latencies.at(-1))} | ${mode.requestsPerHour} |`,
			);
		}
	} finally {
		await app?.stop();
		await sandbox.stop();
	}
}

main().catch((error) => {
	console.error(`latency: could not run: ${error.stack ?? error}`);
	process.exit(1);
});
