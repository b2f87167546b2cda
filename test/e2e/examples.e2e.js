#!/usr/bin/env node
'use strict';
/**
 * Every example workflow of examples/, imported into a real `n8n start` (the packed package, SQLite) and run
 * there: a manual trigger as the editor's Execute workflow (REST), a published trigger, webhook or chat as its
 * user would reach it. Each example has a sandbox of its own with the demo data (the ids its sticky note names);
 * the AI Agent examples talk to the scripted model (./scriptedModel.js). The checks read the nodes' output items
 * and what reached the sandbox. Run: flock /work/heavy.lock npm run test:e2e -- examples (prints
 * "e2e: N passed, M failed")
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/lib/n8n');
const { createChecks } = require('../../scripts/lib/checks');
const { waitFor } = require('../../scripts/lib/wait');
const { createSandbox } = require('../../sandbox/server');
const { startScriptedModel } = require('./scriptedModel');
const { RUNTIME_DIR } = require('../../scripts/lib/n8n-runtime');
const {
	TOKENS,
	SANDBOX_TOKENS,
	readExamples,
	importedCopy,
	credentialsFor,
	restRuns,
	itemsOf,
	exampleClient,
	linkIn,
	press,
} = require('./exampleRuns');
const { manualExampleChecks } = require('./exampleChecks');

const SAVE_FOLDER = '/home/node/.n8n-files/attachments/';

const { check, elapsed, finish, abort } = createChecks('e2e', { timed: true });

/** The installed n8n's version, and the one the project pins (scripts/n8n-runtime/package.json). */
const n8nVersion = () =>
	JSON.parse(fs.readFileSync(path.join(RUNTIME_DIR, 'node_modules/n8n/package.json'), 'utf8'))
		.version;
const pinnedN8nVersion = () =>
	JSON.parse(fs.readFileSync(path.join(n8n.ROOT, 'scripts/n8n-runtime/package.json'), 'utf8'))
		.dependencies.n8n;

async function main() {
	const { work, user } = n8n.prepareSuite('e2e-examples-');
	const files = path.join(work, 'files');
	fs.mkdirSync(files);
	const model = await startScriptedModel();
	const examples = readExamples();
	const byFile = {};
	for (const [index, example] of examples.entries()) {
		const sandbox = await createSandbox({
			tokens: SANDBOX_TOKENS,
			seed: 'demo',
		}).start();
		byFile[example.file] = { ...example, sandbox, credentialId: `exCred${index}` };
	}
	const sandboxes = Object.values(byFile);
	let app;
	try {
		const { tarball } = n8n.packPackage(work);
		n8n.installPackage(user, tarball);
		await n8n.importCredentials(user, work, credentialsFor(sandboxes, TOKENS.me, model.url));
		const copies = sandboxes.map(({ file, workflow, credentialId }) =>
			importedCopy(workflow, {
				credentialId,
				replace: file === 'send-and-save-files.json' ? { [SAVE_FOLDER]: `${files}/` } : {},
			}),
		);
		await n8n.importWorkflows(user, path.join(work, 'workflows'), copies);
		const port = await n8n.freePort();
		app = await n8n.startN8n(user, {
			port,
			env: { WEBHOOK_URL: `http://127.0.0.1:${port}/`, N8N_RESTRICT_FILE_ACCESS_TO: files },
		});
		const session = await n8n.ownerSession(app.url);
		const runs = restRuns(session);
		console.log(
			`e2e: ${copies.length} examples imported, n8n started on ${app.url} (${elapsed()})`,
		);

		const of = (file) => exampleClient(byFile[file]);
		await check(
			'every node of every example is at the version n8n gives a new node (any version it offers, on another n8n than the pinned one)',
			async () => {
				const response = await fetch(`${app.url}/types/nodes.json`, {
					headers: { cookie: session.cookie },
				});
				const offered = {};
				for (const type of await response.json())
					offered[type.name] = {
						versions: [...(offered[type.name]?.versions ?? []), ...[type.version].flat()],
						default: type.defaultVersion ?? offered[type.name]?.default,
					};
				const newest = (type) => offered[type]?.default ?? Math.max(...offered[type].versions);
				const pinned = n8nVersion() === pinnedN8nVersion();
				const wrong = copies.flatMap((w) =>
					w.nodes
						.filter((n) =>
							pinned || n.type.startsWith(`${n8n.PACKAGE_NAME}.`)
								? n.typeVersion !== newest(n.type)
								: !offered[n.type]?.versions.includes(n.typeVersion),
						)
						.map(
							(n) => `${w.name}: ${n.name} (${n.type}) ${n.typeVersion}, newest ${newest(n.type)}`,
						),
				);
				assert.deepEqual(wrong, []);
			},
		);

		// Published as their sticky notes say; each trigger's first check notes where the stream stands.
		for (const file of [
			'auto-reply.json',
			'ai-agent-answers.json',
			'send-and-save-files.json',
			'webhook-to-message.json',
			'agent-asks-before-deleting.json',
		])
			await runs.publish(of(file).id);
		const scripts = [];
		model.play((request, turn) => {
			const prompt = request.messages
				.filter((m) => m.role === 'user')
				.map((m) => String(m.content))
				.join('\n');
			const script = scripts.find((s) => s.test.test(prompt));
			return script?.steps(request)[turn] ?? { text: 'Done.' };
		});

		await manualExampleChecks({ check, of, runs });

		await check(
			'auto-reply: ann asks for help and is answered once; her thanks is not answered',
			async () => {
				const { store, call, listChecks } = of('auto-reply.json');
				await waitFor('the trigger’s first check', () => listChecks() > 0, 60_000);
				const question = await (
					await call(TOKENS.ann, 'POST', '/v1/messages', {
						conversation_id: 'conv_00000001',
						message: 'Can you help me with the invoice?',
					})
				).json();
				const fromMe = () =>
					store
						.listMessages({ conversation_id: 'conv_00000001' })
						.filter((m) => m.contact === 'ct_me' && m.id > question.id)
						.map((m) => m.message);
				await waitFor('the auto-reply', () => fromMe().length > 0, 30_000);
				await call(TOKENS.ann, 'POST', '/v1/messages', {
					conversation_id: 'conv_00000001',
					message: 'Thanks, all good',
				});
				const checks = listChecks();
				await waitFor('two more checks', () => listChecks() >= checks + 2, 30_000);
				await new Promise((r) => setTimeout(r, 2000)); // an execution the last check started ends
				assert.deepEqual(fromMe(), [
					'Hi ann, thanks for asking! Someone from the team will answer shortly.',
				]);
			},
		);

		await check(
			'webhook-to-message: the POSTed text is sent; the answer is the simplified message',
			async () => {
				const { store } = of('webhook-to-message.json');
				const response = await fetch(`${app.url}/webhook/messaging-demo`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({
						conversation_id: 'conv_00000005',
						text: 'Deploy fixed, sent from another app',
					}),
				});
				assert.equal(response.status, 200);
				const sent = await response.json();
				assert.deepEqual(
					[sent.conversation_id, sent.text, sent.from_me, typeof sent.sent_at],
					['conv_00000005', 'Deploy fixed, sent from another app', true, 'string'],
				);
				assert.equal(store.message(sent.id).contact, 'ct_me');
			},
		);

		await check(
			'send-and-save-files: the conversations as conversations.csv in ann’s chat; her attachment saved to disk',
			async () => {
				const { id, store, call, listChecks } = of('send-and-save-files.json');
				const run = await runs.finished(await runs.start(id, 'Send the Report'));
				const [sent] = itemsOf(run, 'Send CSV');
				assert.deepEqual(sent.attachments, [{ name: 'conversations.csv', type: 'text/csv' }]);
				const [file] = store.message(sent.id).attachments;
				const csv = await (await call(TOKENS.me, 'GET', new URL(file.url).pathname)).text();
				const lines = csv.trim().split('\n');
				assert.equal(lines[0], 'id,contact_id,group_id,pinned,muted,archived,last_active_at');
				assert.equal(lines.length, store.conversations.size + 1);

				await waitFor('the trigger’s first check', () => listChecks() > 0, 60_000);
				const bytes = Buffer.from('order,size\n42,M\n');
				const note = await (
					await call(TOKENS.ann, 'POST', '/v1/messages', {
						conversation_id: 'conv_00000001',
						message: 'my order',
						'attachments[0][name]': 'order.csv',
						'attachments[0][mime_type]': 'text/csv',
						'attachments[0][data]': bytes.toString('base64'),
					})
				).json();
				const saved = path.join(files, `${note.id}-order.csv`);
				await waitFor(`${saved} to be written`, () => fs.existsSync(saved), 30_000);
				await waitFor('the whole file', () => fs.readFileSync(saved).equals(bytes), 5_000);
			},
		);

		await check(
			'ai-agent-answers: ann writes, the agent reads the transcript and answers once in her chat',
			async () => {
				const { find, call, listChecks } = of('ai-agent-answers.json');
				scripts.push({
					test: /wrote in conversation/,
					steps: () => [
						{ tool: (n) => n.startsWith('Get_a_conversation'), args: {} },
						{
							tool: (n) => n.startsWith('Send_a_message'),
							args: { Text: 'Parcel 77 is on its way.' },
						},
						{ text: 'Answered.' },
					],
				});
				await waitFor('the trigger’s first check', () => listChecks() > 0, 60_000);
				await call(TOKENS.ann, 'POST', '/v1/messages', {
					conversation_id: 'conv_00000001',
					message: 'Hi, where is my parcel 77?',
				});
				const answer = await find('conv_00000001', /^Parcel 77 is on its way\.$/);
				assert.equal(answer.contact, 'ct_me');
				const request = model.requests.find(
					(r) => model.toolResults(r).length === 1 && /parcel 77/.test(JSON.stringify(r.messages)),
				);
				assert.match(
					request.messages.find((m) => m.role === 'user').content,
					/^ann wrote in conversation conv_00000001: Hi, where is my parcel 77\?$/m,
				);
				const [{ content }] = model.toolResults(request);
				assert.match(JSON.parse(content)[0].transcript, /\] ann: Hi, where is my parcel 77\?$/);
			},
		);

		await check(
			'agent-asks-before-deleting: the agent finds the message; it is deleted only after "Delete it" is pressed',
			async () => {
				const { store, find } = of('agent-asks-before-deleting.json');
				const target = [...store.messages.values()].find((m) => /deploy failed/.test(m.message));
				scripts.push({
					test: /Delete the message about the failed deploy/,
					steps: (request) => {
						const listed = model.toolResults(request)[0];
						const found =
							listed && JSON.parse(listed.content).find((m) => /deploy failed/.test(m.text));
						return [
							{
								tool: (n) => n.startsWith('Get_Many_Messages'),
								args: { Conversation: 'conv_00000005' },
							},
							{
								tool: (n) => n.startsWith('Delete_Message'),
								args: {
									toolParameters: { Message: found?.id ?? 'none found' },
									hitlParameters: {},
								},
							},
							{ text: 'Deleted.' },
						];
					},
				});
				const webhookId = byFile['agent-asks-before-deleting.json'].workflow.nodes.find((n) =>
					n.type.endsWith('.chatTrigger'),
				).webhookId;
				// Not awaited: n8n answers the chat request itself once the execution waits for the person.
				void fetch(`${app.url}/webhook/${webhookId}/chat`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({
						action: 'sendMessage',
						sessionId: 'e2e-examples',
						chatInput: 'Delete the message about the failed deploy in conv_00000005',
					}),
				}).catch((error) => error);
				const request = await find('conv_00000001', /wants to run/, 'the review request');
				assert.match(request.message, new RegExp(`Message: ${target.id}`));
				assert.ok(store.messages.has(target.id), 'nothing is deleted before the person decides');
				await press(linkIn(request.message, 'Delete it'));
				await waitFor('the deletion', () => !store.messages.has(target.id), 30_000);
				const after = await waitFor(
					'the model to receive the result',
					() =>
						model.requests.find(
							(r) =>
								/failed deploy/.test(JSON.stringify(r.messages)) &&
								model.toolResults(r).length === 2,
						),
					30_000,
				);
				assert.match(model.toolResults(after)[1].content, new RegExp(target.id));
			},
		);
	} finally {
		await app?.stop();
		await model.stop();
		for (const { sandbox } of sandboxes) await sandbox.stop();
		fs.rmSync(work, { recursive: true, force: true });
	}
	finish();
}

main().catch(abort);
