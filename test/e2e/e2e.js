#!/usr/bin/env node
'use strict';
/**
 * `npm run test:e2e` (through scripts/e2e.js): the packed package in a real n8n (package mode), against the
 * sandbox service, with the workflows of ./workflows.js. Prints one line per check and ends with
 * "e2e: N passed, N failed".
 */
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/lib/n8n');
const { buildPackage } = require('../../scripts/lib/build');
const { waitFor } = require('../../scripts/lib/wait');
const { runItems } = require('../../scripts/lib/workflows');
const { createSandbox } = require('../../sandbox/server');
const wf = require('./workflows');
const { createChecks } = require('../../scripts/lib/checks');

const WORK = path.join(n8n.ROOT, '.e2e');
const USER = path.join(WORK, 'user');
const TOKEN = 'e2e-token-3d9b';
/** Files the files round trip reads and writes (n8n may touch only this folder). */
const FILES = path.join(WORK, 'files');

const { check, elapsed, finish, abort } = createChecks('e2e');

async function main() {
	n8n.ensureN8n();
	buildPackage();
	fs.rmSync(WORK, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });

	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: 'demo' }).start();
	const { store } = sandbox;
	const inbox = store.createConversation({ contact_id: 'ct_ann' }).id;
	const logConversation = store.createConversation({ contact_id: 'ct_bob' }).id;
	const chatText = store.createConversation({ contact_id: 'ct_bob' }).id;
	console.log(`e2e: sandbox on ${sandbox.url}`);

	let app;
	try {
		const { tarball, files } = n8n.packPackage(WORK);
		await check(
			'npm pack ships only dist/ (with icons and codex files), README, LICENSE and package.json',
			() => {
				const outside = files.filter(
					(f) => !f.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(f),
				);
				assert.deepEqual(outside, []);
				for (const f of [
					'dist/nodes/Messaging/Messaging.node.js',
					'dist/nodes/Messaging/Messaging.node.json',
					'dist/nodes/Messaging/messaging.svg',
					'dist/nodes/MessagingTrigger/MessagingTrigger.node.js',
					'dist/credentials/MessagingApi.credentials.js',
					'dist/credentials/messaging.dark.svg',
				]) {
					assert.ok(files.includes(f), `${f} is missing from the tarball`);
				}
				assert.ok(
					!files.some((f) => f.includes('sandbox') || f.startsWith('dist/test')),
					'the sandbox is not published',
				);
			},
		);
		n8n.installPackage(USER, tarball);

		await n8n.importCredentials(USER, WORK, [wf.credential(`${sandbox.url}/`, TOKEN)]);
		const workflows = [
			wf.messageOperations(inbox),
			wf.conversationOperations('ct_dana'),
			wf.continueOnFail(),
			wf.compatibilityCheck('ct_dana'),
			wf.triggerToLog(inbox, logConversation),
			wf.filesRoundTrip(inbox, FILES),
			wf.chatTextSend(chatText),
		];
		await n8n.importWorkflows(USER, path.join(WORK, 'workflows'), workflows);
		console.log(
			`e2e: package installed, credential and ${workflows.length} workflows imported (${elapsed()})`,
		);

		await check('every message operation, through n8n execute', async () => {
			const run = await n8n.executeWorkflow(USER, 'e2eMessageOps00');
			const sent = runItems(run, 'Send')[0];
			assert.equal(sent.message, 'E2E hello & [welcome] 👋');
			assert.deepEqual(sent.attachments, [{ name: 'a.txt' }]);
			assert.equal(runItems(run, 'Get')[0].id, sent.id);
			assert.equal(runItems(run, 'Update')[0].message, 'E2E edited');
			assert.deepEqual(runItems(run, 'Add Reaction')[0].reactions, [
				{ like: ['ann', 'bob'] },
				{ 'party & fun': ['zoë'] },
			]);
			assert.deepEqual(runItems(run, 'Remove Reaction')[0].reactions, [
				{ like: ['bob'] },
				{ 'party & fun': ['zoë'] },
			]);
			assert.deepEqual(runItems(run, 'Delete'), [{ id: sent.id, deleted: true }]);
			assert.equal(store.messages.has(sent.id), false);
			const many = runItems(run, 'Get Many');
			assert.equal(many.length, 0); // the inbox is empty again
		});

		await check(
			'Send with Text Format, Split Long Text and Extra Body Fields: three plain parts, each with the extra fields',
			async () => {
				const run = await n8n.executeWorkflow(USER, 'e2eChatTextSend');
				const [sent] = runItems(run, 'Send in Parts');
				assert.equal(sent.parts.length, 3);
				assert.deepEqual(
					sent.parts.map((id) => store.messages.get(id).message),
					[
						'Your order\n\nIt shipped today.',
						'Track it here (https://t.example/1).',
						'• box 1\n• box 2',
					],
				);
				const posts = sandbox.requests.filter(
					(r) => r.method === 'POST' && r.path === '/v1/messages' && /reply_to=/.test(r.body),
				);
				assert.equal(posts.length, 3);
				for (const post of posts)
					assert.match(post.body, /&reply_to=msg_42&mentions\[\]=ann&mentions\[\]=bob$/);
			},
		);

		await check('every conversation operation, through n8n execute', async () => {
			const run = await n8n.executeWorkflow(USER, 'e2eConvOps00001');
			const created = runItems(run, 'Create')[0];
			assert.equal(created.contact_id, 'ct_dana');
			assert.equal(
				runItems(run, 'Update')[0].archived_at,
				Date.parse('2026-01-02T03:04:05Z') / 1000,
			);
			assert.equal(runItems(run, 'Unarchive')[0].archived_at, null);
			assert.equal(runItems(run, 'Unpin')[0].is_pinned, false);
			assert.equal(runItems(run, 'Unmute')[0].is_muted, false);
			assert.equal(runItems(run, 'Pin')[0].is_pinned, true);
			assert.equal(runItems(run, 'Mute')[0].is_muted, true);
			const archivedAt = runItems(run, 'Archive')[0].archived_at;
			assert.ok(
				Math.abs(archivedAt - Date.now() / 1000) < 120,
				`archived_at ${archivedAt} is now, in seconds`,
			);
			const many = runItems(run, 'Get Many');
			assert.ok(many.some((c) => c.id === created.id));
			// The node's own filters, with an n8n DateTime from an expression as Created After.
			const hourAgo = Date.now() / 1000 - 3600;
			assert.ok(many.every((c) => c.last_active_at === null && c.created_at >= hourAgo - 120));
			assert.deepEqual(runItems(run, 'Delete'), [{ id: created.id, deleted: true }]);
			assert.equal(store.conversations.has(created.id), false);
		});

		await check(
			'Continue On Fail: the bad item becomes an error item, the others go on',
			async () => {
				const run = await n8n.executeWorkflow(USER, 'e2eContinueFail');
				const items = runItems(run, 'Get Each');
				assert.equal(items.length, 3);
				assert.equal(items[1].error, 'Not found: No such conversation: conv_missing');
				assert.ok(items[0].id && items[2].id);
			},
		);

		await check(
			'Service → Check Compatibility: GETs only by default, the write probe creates and deletes one conversation',
			async () => {
				sandbox.clearRequests();
				const conversations = store.conversations.size;
				const run = await n8n.executeWorkflow(USER, 'e2eCompatCheck1');
				const [readOnly] = runItems(run, 'Check');
				assert.equal(readOnly.timestampUnit.result, 'seconds');
				assert.equal(readOnly.messages.cursor.result, 'honoured');
				assert.equal(readOnly.reactions.result, 'array of objects');
				assert.equal(readOnly.errorBody.result, '404, JSON, reason in error.message');
				assert.equal(readOnly.writeProbe.result, 'off');
				assert.deepEqual(readOnly.attention, []);
				const [written] = runItems(run, 'Check With Write');
				assert.equal(written.writeProbe.result, 'create and delete work');
				const methods = sandbox.requests.map((r) => r.method);
				assert.deepEqual(methods, [...Array(10).fill('GET'), 'POST', 'DELETE', 'GET']);
				assert.equal(store.conversations.size, conversations);
			},
		);

		await check(
			'files: a PNG and a 5 MB PDF read from disk, sent from binary data, downloaded back byte-identical',
			async () => {
				fs.mkdirSync(FILES, { recursive: true });
				const png = Buffer.from(
					'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
					'base64',
				);
				const pdf = Buffer.concat([
					Buffer.from('%PDF-1.7\n'),
					crypto.randomBytes(5 * 1024 * 1024),
					Buffer.from('\n%%EOF\n'),
				]);
				fs.writeFileSync(path.join(FILES, 'in-dot.png'), png);
				fs.writeFileSync(path.join(FILES, 'in-report.pdf'), pdf);
				const run = await n8n.executeWorkflow(USER, 'e2eFilesRound01', {
					env: { N8N_RESTRICT_FILE_ACCESS_TO: FILES },
				});
				const sent = runItems(run, 'Send');
				assert.deepEqual(
					sent.map((m) => m.attachments.map((a) => [a.name, a.mime_type, a.size])).sort(),
					[
						[['in-dot.png', 'image/png', png.length]],
						[['in-report.pdf', 'application/pdf', pdf.length]],
					],
				);
				assert.ok(!JSON.stringify(sent).includes(pdf.subarray(0, 300).toString('base64')));
				const sha = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');
				for (const [name, bytes] of [
					['in-dot.png', png],
					['in-report.pdf', pdf],
				]) {
					assert.equal(sha(fs.readFileSync(path.join(FILES, `out-${name}`))), sha(bytes), name);
				}
			},
		);

		await n8n.publishWorkflow(USER, 'e2eTriggerLog01');
		sandbox.clearRequests();
		const pollsOfInbox = () =>
			sandbox.requests.filter(
				(r) => r.method === 'GET' && r.path === '/v1/messages' && r.query.includes(inbox),
			).length;
		app = await n8n.startN8n(USER);
		console.log(`e2e: n8n started on ${app.url} (${elapsed()})`);
		const session = await n8n.ownerSession(app.url);

		await check('n8n lists both nodes and the credential, with their icons', async () => {
			const get = async (route) =>
				(await fetch(`${app.url}${route}`, { headers: { cookie: session.cookie } })).json();
			const nodes = await get('/types/nodes.json');
			const ours = nodes.filter((n) => n.name.startsWith(`${n8n.PACKAGE_NAME}.`));
			// usableAsTool: n8n adds the AI Agent tool variant of the node itself, and from the sendAndWait
			// operation a human-review tool for agents. Versioned nodes are listed once per version.
			assert.deepEqual([...new Set(ours.map((n) => n.name))].sort(), [
				'n8n-nodes-messaging.messaging',
				'n8n-nodes-messaging.messagingHitlTool',
				'n8n-nodes-messaging.messagingTool',
				'n8n-nodes-messaging.messagingTrigger',
			]);
			const credentials = await get('/types/credentials.json');
			const credential = credentials.find((c) => c.name === 'messagingApi');
			assert.equal(credential?.displayName, 'Messaging API');
			const icons = [
				...ours.flatMap((n) => Object.values(n.iconUrl)),
				...Object.values(credential.iconUrl),
			];
			assert.equal(icons.length, ours.length * 2 + 2);
			for (const icon of icons) {
				const response = await fetch(`${app.url}/${icon}`);
				assert.equal(response.status, 200, icon);
				assert.match(await response.text(), /^<svg/);
			}
		});

		await check(
			'the credential Test button: good token passes, wrong token and wrong URL fail clearly',
			async () => {
				const test = async (data) => {
					const response = await session.rest('POST', '/credentials/test', {
						credentials: {
							id: wf.CREDENTIAL_ID,
							name: 'Messaging (sandbox)',
							type: 'messagingApi',
							data,
						},
					});
					assert.ok(
						response.body?.data,
						`unexpected answer ${response.status}: ${JSON.stringify(response.body)}`,
					);
					return response.body.data;
				};
				assert.deepEqual(await test({ baseUrl: `${sandbox.url}/v1`, accessToken: TOKEN }), {
					status: 'OK',
					message: 'Connection successful!',
				});
				const wrongToken = await test({ baseUrl: sandbox.url, accessToken: 'nope' });
				assert.equal(wrongToken.status, 'Error');
				assert.match(wrongToken.message, /Authentication failed/);
				assert.ok(!wrongToken.message.includes('nope'));
				const wrongUrl = await test({ baseUrl: `${sandbox.url}/nothing-here`, accessToken: TOKEN });
				assert.equal(wrongUrl.status, 'Error');
				assert.match(wrongUrl.message, /No Messaging API at this Base URL/);
			},
		);

		await check(
			'the trigger, active in n8n start: messages created after activation arrive exactly once',
			async () => {
				await waitFor('the activation poll', () => pollsOfInbox() >= 1, 60_000);
				const pollsAtActivation = pollsOfInbox();
				const created = ['first', 'second (same second)', 'third'].map(
					(text) =>
						store.sendMessage('ct_ann', { conversation_id: inbox, message: `E2E trigger: ${text}` })
							.id,
				);
				const seen = () =>
					store.listMessages({ conversation_id: logConversation }).map((m) => m.message);
				await waitFor('the next poll to deliver', () => seen().length >= created.length, 90_000);
				await waitFor('one more poll', () => pollsOfInbox() >= pollsAtActivation + 2, 90_000);
				await new Promise((r) => setTimeout(r, 3000));
				assert.deepEqual(seen().sort(), created.map((id) => `seen ${id}`).sort());
			},
		);
	} finally {
		await app?.stop();
		await sandbox.stop();
	}
	finish();
}

main().catch(abort);
