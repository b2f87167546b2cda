#!/usr/bin/env node
'use strict';
/**
 * Both send-and-wait operations in a real `n8n start` (the packed package in package mode, SQLite),
 * against the sandbox service. Each workflow starts from a Webhook trigger and logs what the waiting
 * node handed on into a log conversation, so the checks read the outcome at the sandbox.
 * Run: bash scripts/toolchain.sh node test/e2e/sendAndWait.e2e.js   (prints "e2e: N passed, M failed")
 */
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const n8n = require('../../scripts/lib/n8n');
const wf = require('./workflows');
const { createChecks } = require('../../scripts/lib/checks');
const {
	TOKEN,
	ANN_TOKEN,
	BOB_TOKEN,
	EVE_TOKEN,
	HOSTILE,
	withChromium,
	waitFor,
	startSendAndWaitSandbox,
	sendAndWaitWorkflows,
} = require('./sendAndWaitWorkflows');

const BROWSER =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

const { check, elapsed, finish, abort } = createChecks('e2e', { timed: true });

async function main() {
	n8n.ensureN8n();
	execFileSync(process.execPath, [path.join(n8n.ROOT, 'node_modules/gulp/bin/gulp.js'), 'build'], {
		cwd: n8n.ROOT,
		stdio: 'ignore',
	});
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-sendwait-'));
	const user = path.join(work, 'user');
	fs.mkdirSync(user, { recursive: true });

	const { sandbox, store, approvals, questions, elsewhere, log, votes, logged, post } =
		await startSendAndWaitSandbox();
	console.log(`e2e: sandbox on ${sandbox.url}`);

	let app;
	try {
		const { tarball } = n8n.packPackage(work);
		n8n.installPackage(user, tarball);
		const credentialsFile = path.join(work, 'credentials.json');
		fs.writeFileSync(credentialsFile, JSON.stringify([wf.credential(`${sandbox.url}/`, TOKEN)]));
		await n8n.n8nCli(user, ['import:credentials', `--input=${credentialsFile}`]);
		const workflows = sendAndWaitWorkflows({ approvals, questions, votes, log });
		await n8n.importWorkflows(user, path.join(work, 'workflows'), workflows);
		for (const workflow of workflows) await n8n.publishWorkflow(user, workflow.id);
		const port = await n8n.freePort();
		app = await n8n.startN8n(user, { port, env: { WEBHOOK_URL: `http://127.0.0.1:${port}/` } });
		console.log(`e2e: n8n started on ${app.url} (${elapsed()})`);
		const start = async (tag, query = '') => {
			const response = await fetch(`${app.url}/webhook/${tag}${query}`);
			assert.equal(response.status, 200, `starting ${tag}: ${await response.text()}`);
		};
		const requestIn = async (conversationId, pattern) =>
			await waitFor(
				'the request message',
				() =>
					store
						.listMessages({ conversation_id: conversationId })
						.find((m) => pattern.test(m.message)),
				30_000,
			);
		const linkIn = (text, label) => new URL(new RegExp(`^${label}: (\\S+)$`, 'm').exec(text)[1]);
		const open = async (url, init = {}) =>
			await fetch(url, { ...init, headers: { 'user-agent': BROWSER, ...init.headers } });

		await check(
			'n8n offers the node to AI agents as a human-review tool (messagingHitlTool)',
			async () => {
				const session = await n8n.ownerSession(app.url);
				const nodes = await (
					await fetch(`${app.url}/types/nodes.json`, { headers: { cookie: session.cookie } })
				).json();
				const ours = nodes
					.filter((n) => n.name.startsWith(`${n8n.PACKAGE_NAME}.`))
					.map((n) => n.name)
					.sort();
				assert.ok(ours.includes(`${n8n.PACKAGE_NAME}.messagingHitlTool`), ours.join(', '));
				const hitl = nodes.find((n) => n.name === `${n8n.PACKAGE_NAME}.messagingHitlTool`);
				const hidden = Object.fromEntries(
					hitl.properties.filter((p) => p.type === 'hidden').map((p) => [p.name, p.default]),
				);
				assert.deepEqual(hidden, {
					resource: 'message',
					operation: 'sendAndWait',
					responseType: 'approval',
				});
			},
		);

		let sentRequest;
		await check(
			'Send and Wait for Response: forged and unsigned links are refused, the approve link resumes with approved: true',
			async () => {
				await start('approve', '?who=Ann');
				sentRequest = await requestIn(approvals, /^Archive Ann\?/);
				const approveLink = linkIn(sentRequest.message, 'Approve');
				const declineLink = linkIn(sentRequest.message, 'Decline');
				assert.match(approveLink.pathname, /^\/webhook-waiting\/\d+\/[\w-]+$/);

				const unsigned = new URL(approveLink);
				unsigned.searchParams.delete('signature');
				const forged = new URL(declineLink);
				forged.searchParams.set('approved', 'true'); // the decline link's signature on an approval
				const wrongSecret = new URL(approveLink);
				wrongSecret.searchParams.set(
					'signature',
					crypto
						.createHmac('sha256', 'not-the-secret')
						.update(approveLink.pathname + '?approved=true')
						.digest('hex'),
				);
				for (const url of [unsigned, forged, wrongSecret]) {
					const response = await open(url);
					assert.equal(response.status, 401, `${url.search} answered ${response.status}`);
				}
				assert.deepEqual(logged('approve'), []); // still waiting

				// Whoever fetches the link (a link preview, a headless browser running the page's scripts) decides nothing.
				for (const agent of ['Iframely/1.3.1 (+https://iframely.com/docs/about)', '']) {
					const preview = await open(approveLink, { headers: { 'user-agent': agent } });
					assert.equal(preview.status, 200);
					assert.match(await preview.text(), /<button type="submit">Approve<\/button>/);
				}
				await withChromium(async (page) => {
					await page.goto(approveLink.href);
					await page.waitForTimeout(1500);
					assert.deepEqual(logged('approve'), [], 'a headless browser loading the link decided');
					// A person's click on the button (a POST to the same signed link) decides.
					await page.click('button[type=submit]');
					await page.waitForSelector('text=Got it, thanks');
				});
				const [out] = await waitFor(
					'the execution to go on',
					() => logged('approve').length && logged('approve'),
					30_000,
				);
				assert.equal(out.data.approved, true);
				assert.equal(out.sentMessageId, sentRequest.id);
				// Update Request Message: the links gone, the outcome below (no person known on this page).
				assert.deepEqual(out.requestUpdate, { updated: true });
				assert.match(
					store.messages.get(sentRequest.id).message,
					/^Archive Ann\?\n\nApproved · \d\d:\d\d \S+$/,
				);

				const again = await open(declineLink); // the execution has finished: nothing more to decide
				assert.notEqual(again.status, 401);
				await new Promise((r) => setTimeout(r, 1000));
				assert.equal(logged('approve').length, 1);
			},
		);

		await check(
			'Send and Wait for Response, Free Text: the form is served and its answer is the output',
			async () => {
				await start('freetext');
				const request = await requestIn(approvals, /^Why archive\?/);
				const link = linkIn(request.message, 'Respond');
				const form = await open(link);
				assert.equal(form.status, 200);
				assert.match(
					await form.text(),
					/<textarea id="response" name="response" required><\/textarea>/,
				);
				const posted = await open(link, {
					method: 'POST',
					headers: { 'content-type': 'application/x-www-form-urlencoded' },
					body: 'response=Ann+left+%26+said+bye',
				});
				assert.equal(posted.status, 200);
				const [out] = await waitFor(
					'the execution to go on',
					() => logged('freetext').length && logged('freetext'),
					30_000,
				);
				assert.equal(out.data.text, 'Ann left & said bye');
				assert.equal(out.sentMessageId, request.id);
			},
		);

		await check(
			'every page shows a hostile title, message and label as text (Chromium, strict CSP)',
			async () => {
				await start('hostile');
				const request = await requestIn(approvals, /^<script>/);
				await withChromium(async (page) => {
					let dialogs = 0;
					page.on('dialog', () => dialogs++);
					await page.goto(linkIn(request.message, 'Respond').href);
					assert.equal(await page.title(), HOSTILE);
					assert.equal(await page.locator('script, img').count(), 0);
					assert.equal(await page.locator('h1').innerText(), HOSTILE);
					assert.equal(await page.locator('button').innerText(), HOSTILE);
					assert.equal(dialogs, 0);
				});
			},
		);

		await check(
			'Send and Wait for Response, Custom Form: hand-made POSTs of 0x10, " 1e3 " and 2026-02-31 get a 400 naming the field and decide nothing; a person fills in n8n’s form page in Chromium; the output is { data: { <label>: value, respondedAt } }',
			async () => {
				await start('customform');
				const request = await requestIn(approvals, /^Refund order 1042\?/);
				const link = linkIn(request.message, 'Respond');
				for (const [fields, problem] of [
					[{ 'field-0': '0x10' }, '&quot;Amount&quot; must be a number'],
					[{ 'field-0': ' 1e3 ' }, '&quot;Amount&quot; must be a number'],
					[{ 'field-0': '1', 'field-3': '2026-02-31' }, '&quot;Refund on&quot; must be a date'],
				]) {
					const body = new FormData(); // multipart, as the page posts it
					for (const [name, value] of Object.entries(fields)) body.append(name, value);
					const refused = await open(link, { method: 'POST', body });
					assert.equal(refused.status, 400, JSON.stringify(fields));
					assert.ok((await refused.text()).includes(problem), JSON.stringify(fields));
				}
				await new Promise((r) => setTimeout(r, 1000));
				assert.deepEqual(logged('customform'), []); // still waiting
				await withChromium(async (page) => {
					await page.goto(link.href);
					assert.deepEqual(logged('customform'), []);
					await page.fill('#field-0', '1e3'); // HTML's exponent form, as a browser sends it
					await page.check('#field-1-0');
					await page.check('#field-1-1');
					await page.fill('#field-2', 'x<y');
					await page.fill('#field-3', '2028-02-29');
					await page.click('button[type=submit]');
					await page.waitForSelector('text=Got it, thanks');
				});
				const [out] = await waitFor(
					'the execution to go on',
					() => logged('customform').length && logged('customform'),
					30_000,
				);
				const { respondedAt, ...fields } = out.data;
				assert.deepEqual(fields, {
					Amount: 1000,
					Checks: ['ID seen', 'Receipt seen'],
					[HOSTILE]: 'x<y',
					'Refund on': '2028-02-29',
				});
				assert.match(respondedAt, /^\d{4}-\d\d-\d\dT/);
				assert.equal(out.sentMessageId, request.id);
			},
		);

		await check(
			'Send and Wait for Reply, Approval by Reaction: the account’s own +1 does not decide, the approver’s does',
			async () => {
				await start('reaction');
				const question = await requestIn(questions, /^Deploy 2\.4/);
				assert.match(question.message, /React with "\+1" to approve, "-1" to decline\.$/);
				const react = async (token, reactors) => {
					const body = new URLSearchParams();
					for (const reactor of reactors) body.append('reactions[+1][]', reactor);
					const response = await fetch(`${sandbox.url}/v1/messages/${question.id}`, {
						method: 'PUT',
						headers: {
							authorization: `Bearer ${token}`,
							'content-type': 'application/x-www-form-urlencoded',
						},
						body,
					});
					assert.equal(response.status, 200);
				};
				await react(TOKEN, ['ct_me']);
				await new Promise((r) => setTimeout(r, 1500));
				assert.deepEqual(logged('reaction'), []);
				await react(ANN_TOKEN, ['ct_me', 'ct_ann']);
				const [out] = await waitFor(
					'the approval',
					() => logged('reaction').length && logged('reaction'),
					30_000,
				);
				assert.equal(out.approved, true);
				assert.deepEqual(out.approvedBy, ['ct_ann']);
				assert.deepEqual(out.declinedBy, []);
				assert.equal(out.timedOut, false);
			},
		);

		await check(
			'Send and Wait for Reply, Approval by Keyword: ct_eve (username ct_ann) and "do_not_approve" do not count; Bob and Ann do',
			async () => {
				await start('keyword');
				const question = await requestIn(votes, /^Refund order 7/);
				assert.match(
					question.message,
					/Reply "approve" or "approved" \(nothing else\) to approve, /,
				);
				await post(ANN_TOKEN, votes, 'do_not_approve');
				await post(EVE_TOKEN, votes, 'approve'); // before: counted for ct_ann
				await post(BOB_TOKEN, votes, 'approve');
				await new Promise((r) => setTimeout(r, 2000)); // a few checks: one approval of the two
				assert.deepEqual(logged('keyword'), []);
				await post(ANN_TOKEN, votes, 'Approved!');
				const [out] = await waitFor(
					'the approval',
					() => logged('keyword').length && logged('keyword'),
					30_000,
				);
				assert.equal(out.approved, true);
				assert.deepEqual(out.approvedBy, ['ct_bob', 'ct_ann']);
				assert.deepEqual(out.declinedBy, []);
				assert.equal(out.sent.id, question.id);
				assert.deepEqual(out.requestUpdate, { updated: true });
				assert.match(
					store.messages.get(question.id).message,
					/^Refund order 7 \(90 EUR\)\?\n\nApproved by ct_bob, ct_ann · \d\d:\d\d \S+$/,
				);
			},
		);

		await check(
			'Send and Wait for Reply: own messages and other conversations do not count; Ann’s reply (her own token) is the output',
			async () => {
				await start('reply');
				const question = await requestIn(questions, /^Which size/);
				await post(TOKEN, questions, 'also: the shop closes at 6'); // the account itself
				await post(ANN_TOKEN, elsewhere, 'S (in another conversation)');
				await new Promise((r) => setTimeout(r, 1500)); // a few checks see only those
				assert.deepEqual(logged('reply'), []);
				const reply = await post(ANN_TOKEN, questions, 'M please');
				const [out] = await waitFor(
					'the reply to be taken',
					() => logged('reply').length && logged('reply'),
					30_000,
				);
				assert.equal(out.timedOut, false);
				assert.equal(out.sent.id, question.id);
				assert.equal(out.reply.id, reply.id);
				assert.equal(out.reply.message, 'M please');
			},
		);

		await check(
			'Send and Wait for Response: Limit Wait Time expires and the execution goes on with the input item',
			async () => {
				await start('timeout', '?who=Bob');
				const request = await requestIn(approvals, /^Archive Bob\?/);
				// n8n's wait tracker looks for due executions once a minute.
				const [out] = await waitFor(
					'the wait limit to pass',
					() => logged('timeout').length && logged('timeout'),
					150_000,
				);
				assert.equal(out.data, undefined);
				assert.deepEqual(out.query, { who: 'Bob' });
				// n8n resumes a timed-out wait with the node disabled: Update Request Message cannot run.
				assert.equal(out.requestUpdate, undefined);
				assert.equal(store.messages.get(request.id).message, request.message);
				// The expired link decides nothing: the execution has gone on.
				const late = await open(linkIn(request.message, 'Approve'), { method: 'POST' });
				// n8n answers a finished send-and-wait itself ("no action required"); the node is not asked.
				assert.doesNotMatch(await late.text(), /Got it, thanks/);
				await new Promise((r) => setTimeout(r, 1000));
				assert.equal(logged('timeout').length, 1);
			},
		);
	} finally {
		await app?.stop();
		await sandbox.stop();
		fs.rmSync(work, { recursive: true, force: true });
	}
	finish();
}

main().catch(abort);
