#!/usr/bin/env node
'use strict';
/**
 * The Messaging Trigger version 2 in a real `n8n start` (package mode), against the sandbox service:
 * active at 5 seconds, messages created at random moments, across a graceful restart (stop n8n,
 * create messages, start) and across a kill. Each delivery is recorded at the service by the
 * workflow ("seen <id> a<attempt>" into a log conversation). Prints one line per check and ends with
 * "e2e: N passed, M failed".
 *
 *   bash scripts/toolchain.sh node test/e2e/trigger.e2e.js
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/lib/n8n');
const { buildPackage } = require('../../scripts/lib/build');
const { waitFor } = require('../../scripts/lib/wait');
const { createSandbox } = require('../../sandbox/server');
const wf = require('./workflows');
const { createChecks } = require('../../scripts/lib/checks');

const WORK = path.join(n8n.ROOT, '.e2e', 'trigger');
const USER = path.join(WORK, 'user');
const TOKEN = 'e2e-trigger-token-71c2';
const WORKFLOW_ID = 'e2eTriggerV2Log1';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Trigger (version 2, every `seconds`) -> Send "seen <id> a<attempt> x<execution>" into the log conversation. */
function triggerV2ToLog(inboxId, logId, seconds) {
	const workflow = wf.triggerToLog(inboxId, logId);
	workflow.id = WORKFLOW_ID;
	workflow.name = `E2E trigger v2 every ${seconds} s`;
	workflow.nodes[0] = {
		...workflow.nodes[0],
		typeVersion: 2,
		parameters: {
			interval: seconds,
			unit: 'seconds',
			conversationId: { __rl: true, mode: 'id', value: inboxId },
			options: {},
		},
	};
	workflow.nodes[1].parameters.text =
		'=seen {{ $json.id }} a{{ $json.attempt ?? 1 }} x{{ $execution.id }}';
	return workflow;
}

/** A version 2 trigger with other events, logging one line per item into `logId`. */
function eventsToLog(id, name, logId, parameters, text) {
	const workflow = triggerV2ToLog('unused', logId, 5);
	workflow.id = id;
	workflow.name = name;
	workflow.nodes[0] = { ...workflow.nodes[0], parameters };
	workflow.nodes[1].parameters.text = text;
	return workflow;
}

/** Deliveries recorded at the service: per message id, the attempts seen. */
function deliveries(store, logConversation) {
	const byId = new Map();
	for (const m of store.listMessages({ conversation_id: logConversation })) {
		const match = /^seen (\S+) a(\d+) x(\S+)$/.exec(m.message);
		if (!match) continue;
		if (!byId.has(match[1])) byId.set(match[1], []);
		byId.get(match[1]).push(Number(match[2]));
	}
	return byId;
}

function verdict(created, seen) {
	const missing = created.filter((id) => !seen.has(id));
	const repeated = created.filter((id) => (seen.get(id)?.length ?? 0) > 1);
	const unmarked = repeated.filter(
		(id) => seen.get(id).filter((attempt) => attempt === 1).length > 1,
	);
	return { missing, repeated, unmarked };
}

const { check, elapsed, finish, abort } = createChecks('e2e', { stackLines: 14 });

async function main() {
	n8n.ensureN8n();
	buildPackage();
	fs.rmSync(WORK, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });

	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: 'demo' }).start();
	const { store } = sandbox;
	const inbox = store.createConversation({ contact_id: 'ct_ann' }).id;
	const logConversation = store.createConversation({ contact_id: 'ct_bob' }).id;
	const burstInbox = store.createConversation({ contact_id: 'ct_ann' }).id;
	const eventsLog = store.createConversation({ contact_id: 'ct_bob' }).id;
	const burstsLog = store.createConversation({ contact_id: 'ct_bob' }).id;
	const quietInbox = store.createConversation({ contact_id: 'ct_ann' }).id;
	const logLines = (conversation) =>
		store
			.listMessages({ conversation_id: conversation })
			.map((m) => m.message)
			.sort();
	console.log(`e2e: sandbox on ${sandbox.url}`);
	const checksOfInbox = () =>
		sandbox.requests.filter(
			(r) => r.method === 'GET' && r.path === '/v1/messages' && r.query.includes(inbox),
		).length;
	const created = [];
	const createAtRandom = async (count, maxGapMs) => {
		for (let i = 0; i < count; i++) {
			await sleep(Math.floor(Math.random() * maxGapMs));
			created.push(
				store.sendMessage('ct_ann', {
					conversation_id: inbox,
					message: `E2E v2 #${created.length + 1}`,
				}).id,
			);
		}
	};

	let app;
	/** The messages created in the kill's check before n8n was killed: the only ones that may be in flight then. */
	let beforeKill = [];
	try {
		const { tarball } = n8n.packPackage(WORK);
		n8n.installPackage(USER, tarball);
		const credentialsFile = path.join(WORK, 'credentials.json');
		fs.writeFileSync(credentialsFile, JSON.stringify([wf.credential(`${sandbox.url}/`, TOKEN)]));
		await n8n.n8nCli(USER, ['import:credentials', `--input=${credentialsFile}`]);
		const workflowFile = path.join(WORK, 'workflow.json');
		fs.writeFileSync(workflowFile, JSON.stringify(triggerV2ToLog(inbox, logConversation, 5)));
		await n8n.n8nCli(USER, ['import:workflow', `--input=${workflowFile}`]);
		await n8n.publishWorkflow(USER, WORKFLOW_ID);
		const eventWorkflows = [
			eventsToLog(
				'e2eTriggerEvnts1',
				'E2E trigger v2 events',
				eventsLog,
				{
					interval: 5,
					unit: 'seconds',
					events: ['messageEdited', 'reactionAdded', 'reactionRemoved', 'newConversation'],
					options: {},
				},
				"=event|{{ $json.event }}|{{ $json.message?.id ?? $json.conversation?.id }}|{{ $json.reaction ?? '' }}|{{ $json.reactor ?? '' }}|{{ $json.after?.message ?? '' }}",
			),
			eventsToLog(
				'e2eTriggerBurst1',
				'E2E trigger v2 bursts',
				burstsLog,
				{
					interval: 5,
					unit: 'seconds',
					events: ['newMessage'],
					conversationId: { __rl: true, mode: 'id', value: burstInbox },
					options: { groupBursts: true, quietPeriod: 6, maxWait: 60 },
				},
				"=burst {{ $json.count }} {{ $json.firstMessageId }}..{{ $json.lastMessageId }} {{ $json.text.replaceAll('\\n', '|') }}",
			),
			// Waits an hour between checks: a stop must not wait for n8n's sleep (which ignores the signal before 2.34).
			eventsToLog(
				'e2eTriggerHour01',
				'E2E trigger v2 every hour',
				quietInbox,
				{
					interval: 1,
					unit: 'hours',
					conversationId: { __rl: true, mode: 'id', value: quietInbox },
					options: {},
				},
				'=hourly {{ $json.id }}',
			),
		];
		for (const workflow of eventWorkflows) {
			fs.writeFileSync(workflowFile, JSON.stringify(workflow));
			await n8n.n8nCli(USER, ['import:workflow', `--input=${workflowFile}`]);
			await n8n.publishWorkflow(USER, workflow.id);
		}

		app = await n8n.startN8n(USER);
		console.log(`e2e: n8n started on ${app.url} (${elapsed()})`);
		await waitFor('the activation check', () => checksOfInbox() >= 1, 60_000);

		await check('checks every 5 seconds: one request per idle check', async () => {
			const from = checksOfInbox();
			await sleep(20_500);
			const checks = checksOfInbox() - from;
			assert.ok(checks >= 3 && checks <= 5, `${checks} checks in 20.5 s`);
		});

		await check(
			'events: an edit, a reaction added and removed, a new conversation each reach the workflow once',
			async () => {
				const target = store.sendMessage('ct_ann', {
					conversation_id: burstInbox,
					message: 'helo',
				}).id;
				await sleep(6_000); // one check sees the message as it was
				store.updateMessage(target, { message: 'hello' });
				store.updateMessage(target, { reactions: { '👍': ['ct_bob'] } });
				const conversation = store.createConversation({ contact_id: 'ct_bob' }).id;
				const wanted = [
					`event|messageEdited|${target}|||hello`,
					`event|newConversation|${conversation}|||`,
					`event|reactionAdded|${target}|👍|ct_bob|`,
				];
				await waitFor(
					'the events',
					() => wanted.every((l) => logLines(eventsLog).includes(l)),
					30_000,
				);
				store.updateMessage(target, { reactions: '' });
				wanted.push(`event|reactionRemoved|${target}|👍|ct_bob|`);
				await waitFor('the removal', () => logLines(eventsLog).length === 4, 30_000);
				await sleep(6_000);
				assert.deepEqual(logLines(eventsLog), wanted.sort());
			},
		);

		await check('Group Bursts: 5 fragments typed 1 s apart give one execution', async () => {
			const sent = performance.now();
			const fragments = ['hi', 'I have a problem', 'with my order', '#1234', 'it never came'];
			const ids = [];
			for (const text of fragments) {
				ids.push(store.sendMessage('ct_ann', { conversation_id: burstInbox, message: text }).id);
				await sleep(1_000);
			}
			await waitFor('the burst', () => logLines(burstsLog).some((l) => l.includes(ids[0])), 40_000);
			const latency = Math.round(performance.now() - sent - 4_000);
			await sleep(8_000);
			const lines = logLines(burstsLog).filter((l) => !l.includes(' helo'));
			assert.deepEqual(lines, [`burst 5 ${ids[0]}..${ids[4]} ${fragments.join('|')}`]);
			console.log(
				`       burst delivered ${latency} ms after its last fragment (quiet period 6 s, checks every 5 s)`,
			);
		});

		await check(
			'messages created at random moments: each delivered once, within a few seconds',
			async () => {
				await createAtRandom(15, 2000);
				await waitFor(
					'every message delivered',
					() => created.every((id) => deliveries(store, logConversation).has(id)),
					30_000,
				);
				await sleep(11_000); // two more checks: nothing comes twice
				const { missing, repeated } = verdict(created, deliveries(store, logConversation));
				assert.deepEqual(missing, []);
				assert.deepEqual(repeated, []);
			},
		);

		await check(
			'stop n8n, create messages, start: each delivered once (the stop waits for its executions and saves their end)',
			async () => {
				await createAtRandom(5, 1500);
				await sleep(7_000);
				const stopped = await app.stop();
				const whileStopped = created.length;
				await createAtRandom(6, 500);
				app = await n8n.startN8n(USER);
				await createAtRandom(6, 2000);
				await waitFor(
					'every message delivered',
					() => created.every((id) => deliveries(store, logConversation).has(id)),
					60_000,
				);
				await sleep(11_000);
				const { missing, repeated, unmarked } = verdict(
					created,
					deliveries(store, logConversation),
				);
				console.log(
					`       ${created.length - whileStopped} created around the restart; ${repeated.length} delivered again (marked redeliveries: ${repeated.length - unmarked.length}); n8n stopped in ${stopped.ms} ms${stopped.killed ? ', killed after 10 s' : ''}`,
				);
				assert.equal(stopped.killed, false, 'n8n did not stop within 10 s of SIGTERM');
				assert.deepEqual(missing, []);
				assert.deepEqual(unmarked, []);
				assert.deepEqual(repeated, []); // a graceful restart redelivers nothing
			},
		);

		await check(
			'n8n killed (SIGKILL) while messages arrive, then started: 0 lost, every repeat a marked redelivery',
			async () => {
				const before = created.length;
				const creating = createAtRandom(10, 800);
				await sleep(3_000 + Math.random() * 3_000);
				process.kill(-app.child.pid, 'SIGKILL');
				beforeKill = created.slice(before);
				await creating;
				await sleep(500);
				app = await n8n.startN8n(USER);
				await createAtRandom(5, 1500);
				await waitFor(
					'every message delivered',
					() => created.every((id) => deliveries(store, logConversation).has(id)),
					60_000,
				);
				await sleep(11_000);
				const { missing, repeated, unmarked } = verdict(
					created,
					deliveries(store, logConversation),
				);
				console.log(
					`       ${created.length - before} created around the kill; ${repeated.length} delivered again in all (marked: ${repeated.length - unmarked.length})`,
				);
				assert.deepEqual(missing, []);
				assert.deepEqual(unmarked, []);
			},
		);

		await check(
			'every successful execution delivered a message (saving state starts no empty execution)',
			async () => {
				const logged = new Set(
					store
						.listMessages({ conversation_id: logConversation })
						.map((m) => /^seen \S+ a\d+ x(\S+)$/.exec(m.message)?.[1]),
				);
				const saved = await n8n.savedExecutions(USER, WORKFLOW_ID);
				const empty = saved.filter((e) => e.status === 'success' && !logged.has(String(e.id)));
				console.log(
					`       ${saved.length} executions saved, ${saved.filter((e) => e.status === 'success').length} successful, ${empty.length} without a delivery`,
				);
				assert.deepEqual(empty, []);
			},
		);

		await check(
			'across the graceful restart and the kill: only what was in flight at the kill came again, once more and marked',
			async () => {
				const seen = deliveries(store, logConversation);
				const { repeated } = verdict(created, seen);
				const settledBefore = repeated.filter((id) => !beforeKill.includes(id));
				assert.deepEqual(
					settledBefore.map((id) => [id, seen.get(id)]),
					[],
					'messages settled before the kill were delivered again',
				);
				const notOnceMore = repeated.filter((id) => [...seen.get(id)].sort().join() !== '1,2');
				assert.deepEqual(
					notOnceMore.map((id) => [id, seen.get(id)]),
					[],
					'a message in flight at the kill should come once more, as attempt 2',
				);
			},
		);
	} finally {
		await app?.stop();
		await sandbox.stop();
	}
	finish();
}

main().catch(abort);
