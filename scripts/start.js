#!/usr/bin/env node
'use strict';
/**
 * `npm start`: the sandbox messaging service with demo data, and a real n8n with this package installed
 * as users install it, a credential pointing at the sandbox and the example workflows imported.
 *
 *   npm start                      editor at http://127.0.0.1:5678, Ctrl-C stops everything
 *   npm start -- --run-examples    headless: runs every example workflow and prints what it did
 *   npm start -- --port 5679       another editor port
 */
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('./lib/n8n');
const { buildPackage } = require('./lib/build');
const { waitFor } = require('./lib/wait');
const { runItems } = require('./lib/workflows');
const { createSandbox } = require('../sandbox/server');
const { persistentDemo } = require('../sandbox/persist');

const DEMO = path.join(n8n.ROOT, '.demo');
/** The editor's user folder (kept between starts, with the service's data) and --run-examples' own. */
const USERS = { editor: path.join(DEMO, 'user'), examples: path.join(DEMO, 'run-examples') };
const SERVICE_DATA = path.join(DEMO, 'service.json');
/** Written once the credential and the examples are imported into the editor's user folder. */
const IMPORTED = path.join(USERS.editor, '.examples-imported');
let USER = USERS.editor;
const EXAMPLES = path.join(n8n.ROOT, 'examples');
const TOKEN = 'demo-token';
/** A second account, so a person can write as ann and watch the auto-reply answer. */
const ANN_TOKEN = 'ann-token';
const TOKENS = { [TOKEN]: 'ct_me', [ANN_TOKEN]: 'ct_ann' };
const CREDENTIAL_ID = 'demoMessagingCred';

function parseArgs(argv) {
	const args = { runExamples: false, port: 5678, sandboxPort: 4010 };
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--run-examples') args.runExamples = true;
		else if (argv[i] === '--port') args.port = Number(argv[++i]);
		else if (argv[i] === '--sandbox-port') args.sandboxPort = Number(argv[++i]);
		else throw new Error(`Unknown option ${argv[i]}: see the header of scripts/start.js`);
	}
	return args;
}

async function startSandboxOn(port, seed) {
	try {
		return await createSandbox({ port, tokens: TOKENS, seed, recordRequests: true }).start();
	} catch (error) {
		if (error.code !== 'EADDRINUSE') throw error;
		return await createSandbox({ port: 0, tokens: TOKENS, seed, recordRequests: true }).start();
	}
}

async function prepare(sandbox) {
	n8n.ensureN8n();
	n8n.log('Building the package…');
	buildPackage();
	// A user folder is kept only with the service data it was used with: triggers remember the ids they
	// delivered, and a service that starts from its demo data again hands the same ids out anew.
	const fresh = USER !== USERS.editor || !fs.existsSync(IMPORTED) || !fs.existsSync(SERVICE_DATA);
	if (fresh) fs.rmSync(USER, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });
	const { tarball } = n8n.packPackage(DEMO);
	n8n.installPackage(USER, tarball);
	n8n.log('Importing the credential and the example workflows into n8n…');
	await n8n.importCredentials(USER, DEMO, [
		{
			id: CREDENTIAL_ID,
			name: 'Messaging (sandbox)',
			type: 'messagingApi',
			data: { baseUrl: sandbox.url, accessToken: TOKEN, timestampUnit: 'auto', ownContactId: '' },
		},
	]);
	if (!fresh) return;
	await n8n.n8nCli(USER, ['import:workflow', '--separate', `--input=${EXAMPLES}`]);
	for (const id of ['exAutoReply0001', 'exWebhookSend01']) await n8n.publishWorkflow(USER, id);
	if (USER === USERS.editor) fs.writeFileSync(IMPORTED, new Date().toISOString());
}

async function runExamples(sandbox) {
	const { store } = sandbox;
	const results = [];
	const report = (name, ok, detail) => {
		results.push(ok);
		console.log(`${ok ? 'OK  ' : 'FAIL'} ${name}: ${detail}`);
	};
	const execute = async (name, id, describe) => {
		try {
			report(name, true, describe(await n8n.executeWorkflow(USER, id)));
		} catch (error) {
			report(name, false, error.message.split('\n')[0]);
		}
	};

	await execute('Muting rule for a group', 'exMuteGroup0001', (run) => {
		const muted = runItems(run, 'Mute');
		return `muted ${muted.length} conversation(s) of group grp_team: ${muted.map((c) => c.id).join(', ') || 'none left to mute'}`;
	});
	await execute('Reactions', 'exReactKeyword1', (run) => {
		const reacted = runItems(run, 'Add Eyes Reaction');
		return `added "eyes" to ${reacted.length} message(s) mentioning "urgent": ${reacted.map((m) => `"${m.message}"`).join(', ')}`;
	});
	await execute('Scheduled archiving rule', 'exArchiveStale1', (run) => {
		const archived = runItems(run, 'Archive');
		return `archived ${archived.length} conversation(s) inactive for 30+ days: ${archived.map((c) => `${c.id} (contact ${c.contact_id})`).join(', ') || 'none'}`;
	});

	// From here on only the trigger lists messages: wait for its activation poll before ann writes.
	sandbox.clearRequests();
	const app = await n8n.startN8n(USER);
	try {
		const triggerPolls = () =>
			sandbox.requests.filter((r) => r.path === '/v1/messages' && r.method === 'GET').length;
		await waitFor("the auto-reply's activation poll", () => triggerPolls() > 0, 60_000).catch(
			() => undefined,
		);
		const question = store.sendMessage('ct_ann', {
			conversation_id: 'conv_00000001',
			message: 'Hi, can you help me with the invoice?',
		});
		console.log(
			'     (auto-reply: a message from ann arrived; the trigger checks every 5 seconds…)',
		);
		const reply = await waitFor(
			'the auto-reply',
			() =>
				store
					.listMessages({ conversation_id: 'conv_00000001' })
					.find((m) => m.contact === 'ct_me' && m.created_at >= question.created_at),
			90_000,
		).catch(() => undefined);
		report(
			'Auto-reply',
			!!reply,
			reply
				? `ann wrote "${question.message}", the workflow answered "${reply.message}"`
				: `no reply within 90 s; n8n said:\n${app.output().trim().split('\n').slice(-15).join('\n')}`,
		);

		const response = await fetch(`${app.url}/webhook/messaging-demo`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				conversation_id: 'conv_00000005',
				text: 'Deploy fixed, sent from another app',
			}),
		});
		const sent = await response.json().catch(() => ({}));
		report(
			'Message from another app',
			response.ok && sent.text === 'Deploy fixed, sent from another app',
			`POST /webhook/messaging-demo -> ${response.status}, message ${sent.id} in ${sent.conversation_id}: "${sent.text}"`,
		);
	} finally {
		await app.stop();
	}
	return results.every(Boolean);
}

async function main() {
	const args = parseArgs(process.argv.slice(2));
	// The editor's service keeps its data between starts; --run-examples starts from the demo data each time.
	if (args.runExamples) USER = USERS.examples;
	const data = args.runExamples ? undefined : persistentDemo(SERVICE_DATA);
	const sandbox = await startSandboxOn(
		args.sandboxPort,
		data ? (store) => data.seed(store) : 'demo',
	);
	const saving = data && setInterval(() => data.save(), 2_000);
	let app;
	const stopAll = async () => {
		await app?.stop();
		clearInterval(saving);
		data?.save();
		await sandbox.stop();
	};
	process.on('SIGINT', () => stopAll().then(() => process.exit(0)));
	process.on('SIGTERM', () => stopAll().then(() => process.exit(0)));
	try {
		await prepare(sandbox);
		if (args.runExamples) {
			const ok = await runExamples(sandbox);
			await stopAll();
			process.exit(ok ? 0 : 1);
		}
		sandbox.clearRequests();
		app = await n8n.startN8n(USER, { port: args.port });
		const session = await n8n.ownerSession(app.url);
		// The auto-reply's first poll only notes where the stream stands: wait for it, so that what the
		// person writes next is new to it.
		// Past a minute the banner comes anyway: the editor is usable without the auto-reply.
		await waitFor(
			"the auto-reply's activation poll",
			() => sandbox.requests.some((r) => r.method === 'GET' && r.path === '/v1/messages'),
			60_000,
		).catch(() => undefined);
		console.log(`
n8n is running with n8n-nodes-messaging installed: ${app.url}
  sign in:   ${session.owner.email} / ${session.owner.password}
  service:   sandbox messaging service on ${sandbox.url} (your token ${TOKEN}, ann's ${ANN_TOKEN}), demo data loaded
  credential "Messaging (sandbox)" points at it; the example workflows are imported.

Try:
  - open "Messaging: mute every conversation of a group" and click Execute workflow;
  - the auto-reply is active (its trigger checks every 5 seconds): write as ann, and within about 5 seconds
    it answers in the same conversation
      curl -H 'Authorization: Bearer ${ANN_TOKEN}' -d conversation_id=conv_00000001 -d 'message=can you help?' ${sandbox.url}/v1/messages
      curl -H 'Authorization: Bearer ${TOKEN}' '${sandbox.url}/v1/messages?conversation_id=conv_00000001&limit=2'
  - send from "another app" through the active webhook:
    curl -X POST -H 'content-type: application/json' \\
      -d '{"conversation_id":"conv_00000005","text":"hello from curl"}' ${app.url}/webhook/messaging-demo

Ctrl-C stops n8n and the sandbox.`);
		await new Promise(() => {}); // until Ctrl-C
	} catch (error) {
		await stopAll();
		console.error(error.message);
		process.exit(1);
	}
}

main();
