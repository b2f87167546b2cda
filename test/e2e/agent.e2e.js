#!/usr/bin/env node
'use strict';
/**
 * n8n's AI Agent uses the Messaging tool, in a real `n8n start` (the packed package, SQLite), with a
 * scripted chat model (test/e2e/scriptedModel.js) in place of a real one. The checks read what the model
 * was offered and what each tool call returned to it, and what reached the sandbox service.
 * Run: flock /work/heavy.lock npm run test:e2e -- agent   (prints "agent-e2e: N passed, M failed")
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/lib/n8n');
const { createSandbox } = require('../../sandbox/server');
const wf = require('./workflows');
const { createChecks } = require('../../scripts/lib/checks');
const { waitFor } = require('../../scripts/lib/wait');
const { startScriptedModel } = require('./scriptedModel');
const { OPENAI_CREDENTIAL, agentWorkflows, playScript } = require('./agentWorkflows');

const TOKEN = 'e2e-agent-token-me';
const BROWSER =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

const { check, elapsed, finish, abort } = createChecks('agent-e2e', { timed: true });

async function main() {
	const { work, user } = n8n.prepareSuite('e2e-agent-');
	const { TOOL_DESCRIPTIONS } = require('../../dist/nodes/Messaging/actions/resources');

	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: 'none' }).start();
	const model = await startScriptedModel();
	const { store } = sandbox;
	store.addContact({ id: 'ct_me', username: 'support' });
	store.addContact({ id: 'ct_ann', username: 'ann', phoneNumber: '+15550009999' });
	const chat = store.createConversation({ contact_id: 'ct_ann' }).id;
	const approvals = store.createConversation({ contact_id: 'ct_ann' }).id;
	for (let n = 1; n <= 120; n++) {
		store.sendMessage(
			n % 2 ? 'ct_ann' : 'ct_me',
			{ conversation_id: chat, message: n === 120 ? 'Where is my order 42?' : `earlier ${n}` },
			{ createdAt: 1_700_000_000 + n * 60 },
		);
	}
	console.log(`agent-e2e: sandbox on ${sandbox.url}, scripted model on ${model.url}`);

	let app;
	try {
		const { tarball } = n8n.packPackage(work);
		n8n.installPackage(user, tarball);
		const credentialsFile = path.join(work, 'credentials.json');
		fs.writeFileSync(
			credentialsFile,
			JSON.stringify([
				wf.credential(`${sandbox.url}/`, TOKEN),
				{
					...OPENAI_CREDENTIAL,
					type: 'openAiApi',
					data: { apiKey: 'sk-scripted', url: model.url },
				},
			]),
		);
		await n8n.n8nCli(user, ['import:credentials', `--input=${credentialsFile}`]);
		const workflows = agentWorkflows(approvals);
		await n8n.importWorkflows(user, path.join(work, 'workflows'), workflows);
		for (const workflow of workflows) await n8n.publishWorkflow(user, workflow.id);
		const port = await n8n.freePort();
		app = await n8n.startN8n(user, { port, env: { WEBHOOK_URL: `http://127.0.0.1:${port}/` } });
		console.log(`agent-e2e: n8n started on ${app.url} (${elapsed()})`);
		// n8n registers the production webhooks of published workflows only after its editor is up (loading
		// the AI nodes takes seconds): a 404 is retried until the webhook is there.
		const start = async (tag) => {
			let last;
			await waitFor(
				`the webhook of ${tag}`,
				async () => {
					const response = await fetch(`${app.url}/webhook/${tag}`);
					last = `${response.status} ${await response.text()}`;
					return response.status === 200;
				},
				90_000,
			).catch((error) => {
				throw new Error(
					`${error.message}: ${last}\n${app.output().trim().split('\n').slice(-40).join('\n')}`,
				);
			});
		};
		/** The request of the current agent run that carries `count` tool results. */
		const requestWithResults = async (task, count, timeoutMs = 60_000) => {
			const ofTask = () =>
				model.requests.filter((r) =>
					r.messages.some((m) => m.role === 'user' && String(m.content).includes(task)),
				);
			return await waitFor(
				`the model's request after ${count} tool result(s) of ${task}`,
				() => ofTask().find((r) => model.toolResults(r).length === count),
				timeoutMs,
			).catch((error) => {
				const last = ofTask().at(-1);
				throw new Error(
					`${error.message}; the model got ${ofTask().length} request(s), the last with these tool results: ${JSON.stringify(last ? model.toolResults(last) : []).slice(0, 1500)}\n${app.output().trim().split('\n').slice(-30).join('\n')}`,
				);
			});
		};

		// ---- the regular tool: Send, Get Context, a failing Get, Get Many with a huge limit, bad arguments ----
		const steps = playScript(model, chat);
		await start('tools');
		const last = await requestWithResults('Task tools', steps.length - 1);
		const results = model.toolResults(last);
		const first = model.requests.find((r) =>
			r.messages.some((m) => m.role === 'user' && String(m.content).includes('Task tools')),
		);

		await check(
			'the model is offered each operation with its description and its parameters',
			async () => {
				const offered = Object.fromEntries(first.tools.map((t) => [t.function.name, t.function]));
				const send = offered.Send_a_message_in_Messaging;
				assert.equal(send.description, TOOL_DESCRIPTIONS.message.send);
				assert.match(send.description, /conv_123/);
				assert.deepEqual(Object.keys(send.parameters.properties).sort(), ['Conversation', 'Text']);
				assert.equal(
					offered.Get_a_conversation_transcript_in_Messaging.description,
					TOOL_DESCRIPTIONS.conversation.getContext,
				);
				assert.deepEqual(
					Object.keys(
						offered.Get_a_conversation_transcript_in_Messaging.parameters.properties,
					).sort(),
					['Conversation', 'Max_Messages'],
				);
				assert.equal(
					offered.Get_many_messages_in_Messaging.description,
					TOOL_DESCRIPTIONS.message.getAll,
				);
			},
		);

		await check(
			'Send: reaches the service (a number as Text is sent as text) and returns the compact message',
			async () => {
				const sent = store
					.listMessages({ conversation_id: chat })
					.find((m) => m.message === '12345');
				assert.ok(sent, 'the message reached the service');
				const [result] = JSON.parse(results[0].content);
				assert.equal(results[0].name, 'Send_a_message_in_Messaging');
				// As a tool, empty fields (null, {}, []) are left out.
				assert.deepEqual(Object.keys(result).sort(), [
					'conversation_id',
					'from',
					'from_id',
					'from_me',
					'id',
					'sent_at',
					'text',
				]);
				assert.equal(result.text, '12345');
				assert.equal(result.from_me, true);
			},
		);

		await check(
			'Get Context: one transcript of the latest messages, speakers labelled, no personal data',
			async () => {
				const [result] = JSON.parse(results[1].content);
				const lines = result.transcript.split('\n');
				assert.equal(lines.length, 6);
				assert.match(
					lines[0],
					/^Conversation conv_\d+ \(one-to-one with ct_ann\): 5 messages, oldest first; earlier messages exist\.$/,
				);
				assert.match(
					lines[4],
					/^\[2023-11-15T00:13:20\.000Z\] me: Where is my order 42\?$|ann: Where is my order 42\?$/,
				);
				assert.match(lines[5], /\] me: 12345$/);
				assert.doesNotMatch(results[1].content, /\+1555|avatar/);
			},
		);

		await check(
			'a failing Get (unknown id) returns one sentence to the model; the run goes on',
			async () => {
				const { content } = results[2];
				console.log(`       the model received: ${content}`);
				assert.doesNotMatch(content, /\[item 0\]|\bat .*\.js:\d+|e2e-agent-token/);
				// n8n hands the model the failed call's items: [{ error }].
				assert.equal(
					JSON.parse(content)[0].error,
					'Not found: No such message: msg_nope. Check the ID: use one returned by another call (Get Many, Get Context), never a name.',
				);
			},
		);

		await check(
			'Get Many with a limit of 10,000 returns at most 100 compact messages',
			async () => {
				const list = JSON.parse(results[3].content);
				assert.equal(list.length, 100);
				console.log(
					`       ${results[3].content.length} characters for 100 messages (${Math.round(results[3].content.length / 100)} each)`,
				);
			},
		);

		await check(
			'an object as an id is refused in one sentence; Get Many of an unknown conversation is an error',
			async () => {
				console.log(`       the model received: ${results[4].content}`);
				assert.equal(
					JSON.parse(results[4].content)[0].error,
					'Message must be text, not an object',
				);
				assert.doesNotMatch(results[4].content, /\[item 0\]/);
				console.log(`       the model received: ${results[5].content}`);
				assert.equal(
					JSON.parse(results[5].content)[0].error,
					'Conversation "conv_nope" does not exist',
				);
			},
		);

		// ---- the human-review tool: the request message, the approval by link, the decision to the model ----
		await start('review');
		const request = await waitFor(
			'the review request message',
			() =>
				store.listMessages({ conversation_id: approvals }).find((m) => /Approve: /.test(m.message)),
			60_000,
		);
		await check('the human-review request shows the tool and its arguments, readable', async () => {
			console.log(`       request message:\n${request.message.replace(/^/gm, '         ')}`);
			assert.doesNotMatch(request.message, /\[object Object\]/);
			assert.match(request.message, /Send_a_message_in_Messaging/);
			assert.match(request.message, /Your refund for order 42 is approved\./);
			assert.ok(request.message.includes(chat));
		});
		await check(
			'approved by link: the message is sent and the model receives the result',
			async () => {
				assert.equal(
					store
						.listMessages({ conversation_id: chat })
						.some((m) => /refund for order 42/.test(m.message)),
					false,
					'nothing sent before the approval',
				);
				const approve = new URL(/^Approve: (\S+)$/m.exec(request.message)[1]);
				// Opening the link only shows the page; the person's press of its button (a POST) decides.
				const page = await fetch(approve, { headers: { 'user-agent': BROWSER } });
				assert.equal(page.status, 200);
				const response = await fetch(approve, {
					method: 'POST',
					headers: { 'user-agent': BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
					body: '',
				});
				assert.equal(response.status, 200);
				const after = await requestWithResults('Task review', 1);
				const [result] = model.toolResults(after);
				console.log(`       the model received: ${result.content.slice(0, 300)}`);
				assert.ok(
					store
						.listMessages({ conversation_id: chat })
						.some((m) => /refund for order 42/.test(m.message)),
					'the approved message reached the service',
				);
				assert.match(result.content, /refund for order 42/);
			},
		);
	} finally {
		await app?.stop();
		await model.stop();
		await sandbox.stop();
		fs.rmSync(work, { recursive: true, force: true });
	}
	finish();
}

main().catch(abort);
