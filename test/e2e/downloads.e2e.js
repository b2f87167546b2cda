#!/usr/bin/env node
'use strict';
/**
 * Download Attachments in a real n8n (package mode) against files that misbehave, served by a loopback
 * file server: Get's Timeout over a file that drips, a gzip body with its compressed length, a gzip bomb,
 * a body cut mid-way (n8n's own error texts never replace the node's), and the trigger version 2 at 5 s
 * delivering a message whose file drips within its 3 s budget, the next message on time; an attachment URL on an
 * internal address (127.0.0.2) refused by default, and with n8n's SSRF protection on, refused by it, plainly.
 * Prints one line per check and ends with "e2e: N passed, M failed".
 *
 *   bash scripts/toolchain.sh node test/e2e/downloads.e2e.js
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const n8n = require('../../scripts/lib/n8n');
const { buildPackage } = require('../../scripts/lib/build');
const { waitFor } = require('../../scripts/lib/wait');
const { byId, chainWorkflow, manualTrigger, runItems } = require('../../scripts/lib/workflows');
const { createSandbox } = require('../../sandbox/server');
const { startFileServer } = require('../harness/fileServer');
const wf = require('./workflows');
const { createChecks } = require('../../scripts/lib/checks');

const WORK = path.join(n8n.ROOT, '.e2e', 'downloads');
const USER = path.join(WORK, 'user');
const TOKEN = 'e2e-downloads-token-5a0e';
const TRIGGER_ID = 'e2eDownloadTrig1';
const credentials = { messagingApi: { id: wf.CREDENTIAL_ID, name: 'Messaging (sandbox)' } };
const CONTINUE_ON_FAIL = { onError: 'continueRegularOutput' };

const { check, elapsed, finish, abort } = createChecks('e2e');

/** Start -> one Get per message, each with Download Attachments and Continue On Fail. */
function getEach(steps, id = 'e2eDownloadGets1') {
	return chainWorkflow({
		id,
		name: 'E2E downloads: Get',
		nodes: [
			manualTrigger(),
			...steps.map(({ name, messageId, options }) => ({
				name,
				type: 'n8n-nodes-messaging.messaging',
				parameters: {
					resource: 'message',
					operation: 'get',
					messageId: byId(messageId),
					options: { downloadAttachments: true, allowPrivateAddresses: true, ...options },
				},
				credentials,
				...CONTINUE_ON_FAIL,
			})),
		],
	});
}

/** Trigger version 2 every 5 s with Download Attachments -> "seen <id> | <attachmentErrors>" into `logId`. */
function triggerToLog(inboxId, logId) {
	const workflow = wf.triggerToLog(inboxId, logId);
	workflow.id = TRIGGER_ID;
	workflow.name = 'E2E downloads: trigger';
	workflow.nodes[0] = {
		...workflow.nodes[0],
		typeVersion: 2,
		parameters: {
			interval: 5,
			unit: 'seconds',
			conversationId: { __rl: true, mode: 'id', value: inboxId },
			options: { downloadAttachments: true, allowPrivateAddresses: true },
		},
	};
	workflow.nodes[1].parameters.text =
		"=seen {{ $json.id }} | {{ ($json.attachmentErrors ?? []).join(' / ') }}";
	return workflow;
}

async function main() {
	n8n.ensureN8n();
	buildPackage();
	fs.rmSync(WORK, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });

	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, seed: 'demo' }).start();
	const files = await startFileServer();
	const internal = await startFileServer({ host: '127.0.0.2' });
	const secret = internal.route('/admin/secret', (req, res) => res.end('the admin secret'));
	const { store } = sandbox;
	const inbox = store.createConversation({ contact_id: 'ct_ann' }).id;
	const triggerInbox = store.createConversation({ contact_id: 'ct_ann' }).id;
	const log = store.createConversation({ contact_id: 'ct_bob' }).id;
	const send = (conversation, text, attachments) =>
		store.sendMessage('ct_ann', { conversation_id: conversation, message: text, attachments }).id;
	const text = Buffer.from('The quarterly report, line after line. '.repeat(2_000));
	const ids = {
		gzip: send(inbox, 'gzip', [
			{ name: 'report.txt', url: files.encoded('/report', text, 'gzip') },
		]),
		drip: send(inbox, 'drip', [
			{ name: 'slow.bin', url: files.drip('/slow', { length: 60, everyMs: 500 }) },
		]),
		cut: send(inbox, 'cut', [
			{ name: 'cut.pdf', url: files.cut('/cut', { length: 1000, sent: 400 }) },
		]),
		bomb: send(inbox, 'bomb', [
			{ name: 'bomb.txt', url: files.encoded('/bomb', Buffer.alloc(10 * 1024 * 1024), 'gzip') },
		]),
		internal: send(inbox, 'internal', [{ name: 'secret.txt', url: secret }]),
	};
	console.log(`e2e: sandbox on ${sandbox.url}, files on ${files.url}`);

	let app;
	try {
		const { tarball } = n8n.packPackage(WORK);
		n8n.installPackage(USER, tarball);
		await n8n.importCredentials(USER, WORK, [wf.credential(`${sandbox.url}/`, TOKEN)]);
		const gets = getEach([
			{ name: 'Get gzip', messageId: ids.gzip },
			{ name: 'Get drip', messageId: ids.drip, options: { timeout: 2 } },
			{ name: 'Get cut', messageId: ids.cut },
			{ name: 'Get bomb', messageId: ids.bomb, options: { maxAttachmentSize: 1 } },
			{ name: 'Get internal', messageId: ids.internal, options: { allowPrivateAddresses: false } },
		]);
		// Allowed by the node's option, left to n8n's own SSRF protection.
		const guarded = getEach(
			[{ name: 'Get internal', messageId: ids.internal }],
			'e2eDownloadGets2',
		);
		await n8n.importWorkflows(USER, path.join(WORK, 'workflows'), [
			gets,
			guarded,
			triggerToLog(triggerInbox, log),
		]);
		console.log(`e2e: package installed, workflows imported (${elapsed()})`);

		const run = await n8n.executeWorkflow(USER, gets.id);
		const node = (name) => run.data.resultData.runData[name][0];
		const error = (name) => runItems(run, name)[0].error;

		await check('Get: a gzip body with its compressed Content-Length is stored decoded', () => {
			const [item] = node('Get gzip').data.main[0];
			assert.equal(item.json.error, undefined);
			assert.equal(item.binary.attachment_0.fileName, 'report.txt');
			assert.equal(item.binary.attachment_0.bytes, text.length);
			assert.equal(files.requests.filter((r) => r.path === '/report').length, 1);
		});

		await check('Get: the Timeout of 2 s ends a file that drips (30 s in all), named', () => {
			assert.match(
				error('Get drip'),
				/^Attachment 0 of message \S+ \(slow\.bin\) could not be downloaded: it took longer than the Timeout of 2 s \(\d+ of 60 bytes had arrived\) \[item 0\]$/,
			);
			const ms = node('Get drip').executionTime;
			console.log(`       Get with the dripping file ended after ${ms} ms`);
			assert.ok(ms < 6_000, `${ms} ms`);
		});

		await check('Get: a body cut mid-way names the attachment (not n8n’s generic text)', () => {
			assert.equal(
				error('Get cut'),
				`Attachment 0 of message ${ids.cut} (cut.pdf) could not be downloaded: the connection was cut after 400 of 1000 bytes [item 0]`,
			);
		});

		await check('Get: a gzip bomb is refused at the limit of 1 MB', () => {
			assert.equal(
				error('Get bomb'),
				`Attachment 0 of message ${ids.bomb} (bomb.txt) could not be downloaded: it is over the limit of 1.0 MB (option Max Attachment Size) [item 0]`,
			);
		});

		await check(
			'Get: an attachment URL on an internal address is refused by default, never fetched',
			() => {
				assert.equal(
					error('Get internal'),
					`Attachment 0 of message ${ids.internal} (secret.txt) could not be downloaded: its url is on 127.0.0.2, a loopback address: refused outside the Base URL's origin (option Allow Private Addresses) [item 0]`,
				);
				assert.equal(internal.requests.length, 0);
			},
		);

		await check(
			"Get with Allow Private Addresses under n8n's SSRF protection: refused by n8n, said plainly, not retried",
			async () => {
				const ssrf = await n8n.executeWorkflow(USER, guarded.id, {
					env: { N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32' },
				});
				const message = runItems(ssrf, 'Get internal')[0].error;
				assert.match(message, /refused by n8n's SSRF protection: 127\.0\.0\.2/);
				assert.doesNotMatch(message, /network error/);
				assert.equal(internal.requests.length, 0);
			},
		);

		await n8n.publishWorkflow(USER, TRIGGER_ID);
		const lists = () =>
			sandbox.requests.filter(
				(r) => r.method === 'GET' && r.path === '/v1/messages' && r.query.includes(triggerInbox),
			).length;
		app = await n8n.startN8n(USER);
		console.log(`e2e: n8n started on ${app.url} (${elapsed()})`);
		await waitFor('the activation check', () => lists() >= 1, 60_000);

		await check(
			'trigger at 5 s: a file sending a byte a second goes to attachmentErrors within the 3 s budget; the next message on time',
			async () => {
				const logged = () => store.listMessages({ conversation_id: log }).map((m) => m.message);
				const sent = Date.now();
				const slow = send(triggerInbox, 'slow', [
					{ name: 'drip.bin', url: files.drip('/drip', { length: 120, everyMs: 1_000 }) },
				]);
				await waitFor('the slow message', () => logged().some((l) => l.includes(slow)), 60_000);
				const slowMs = Date.now() - sent;
				await new Promise((r) => setTimeout(r, 5_000 - Math.min(5_000, slowMs)));
				const next = send(triggerInbox, 'next', []);
				const nextSent = Date.now();
				await waitFor('the next message', () => logged().some((l) => l.includes(next)), 60_000);
				const nextMs = Date.now() - nextSent;
				console.log(
					`       the message with the dripping file delivered after ${slowMs} ms, the next one ${nextMs} ms after it was sent`,
				);
				assert.match(
					logged().find((l) => l.includes(slow)),
					new RegExp(
						`^seen ${slow} \\| Attachment 0 of message ${slow} \\(drip\\.bin\\) could not be downloaded: it took longer than the 3 s a check gives its downloads \\(\\d+ of 120 bytes had arrived\\)$`,
					),
				);
				assert.equal(
					logged().find((l) => l.includes(next)),
					`seen ${next} | `,
				);
				assert.ok(slowMs < 15_000, `${slowMs} ms`);
				assert.ok(nextMs < 15_000, `${nextMs} ms`);
				const dripped = files.requests.find((r) => r.path === '/drip');
				assert.ok(
					dripped.closedAt - dripped.at < 5_000,
					'the dripping file’s connection was closed',
				);
			},
		);
	} finally {
		await app?.stop();
		await files.stop();
		await internal.stop();
		await sandbox.stop();
	}
	finish();
}

main().catch(abort);
