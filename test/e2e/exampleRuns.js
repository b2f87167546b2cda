'use strict';
/**
 * For the examples suite (./examples.e2e.js): each example as the suite imports it, changed only where its
 * sticky note says to replace something (the credential, a folder) or where this machine differs from a
 * user's (the scripted model speaks Chat Completions only; the chat is reached at its public URL, not the
 * editor's chat panel); and runs as the editor starts them, through n8n's REST API.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, RUNTIME_DIR } = require('../../scripts/lib/n8n-runtime');
const { waitFor } = require('../../scripts/lib/wait');

const EXAMPLES = path.join(ROOT, 'examples');
const MESSAGING_CREDENTIAL = 'demoMessagingCred';
const OPENAI_CREDENTIAL = 'exampleOpenAiCred';

/** Every example: { file, workflow } as in examples/. */
function readExamples() {
	return fs
		.readdirSync(EXAMPLES)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => ({
			file,
			workflow: JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')),
		}));
}

/**
 * The copy the suite imports: its Messaging credential is `credentialId` (a sandbox of its own), its OpenAI
 * one the scripted model's, and `replace` maps a text of its parameters to another (a folder).
 */
function importedCopy(workflow, { credentialId, replace = {} }) {
	const copy = JSON.parse(JSON.stringify(workflow));
	for (const node of copy.nodes) {
		const messaging = node.credentials?.messagingApi;
		if (messaging) {
			assert.equal(messaging.id, MESSAGING_CREDENTIAL, `${node.name}: the sandbox credential`);
			messaging.id = credentialId;
		}
		if (node.type.endsWith('.lmChatOpenAi')) {
			assert.equal(node.credentials?.openAiApi?.id, OPENAI_CREDENTIAL, node.name);
			node.parameters.responsesApiEnabled = false;
		}
		if (node.type.endsWith('.chatTrigger')) node.parameters.public = true;
	}
	let text = JSON.stringify(copy.nodes);
	for (const [from, to] of Object.entries(replace)) {
		assert.ok(text.includes(from), `${workflow.name} has no ${from} to replace`);
		text = text.split(from).join(to);
	}
	copy.nodes = JSON.parse(text);
	return copy;
}

/** The credentials the copies use: one Messaging credential per sandbox, and the scripted model. */
function credentialsFor(sandboxes, token, modelUrl) {
	return [
		...sandboxes.map(({ credentialId, sandbox }) => ({
			id: credentialId,
			name: `Messaging (sandbox of ${credentialId})`,
			type: 'messagingApi',
			data: {
				baseUrl: `${sandbox.url}/`,
				accessToken: token,
				timestampUnit: 'auto',
				ownContactId: '',
			},
		})),
		{
			id: OPENAI_CREDENTIAL,
			name: 'OpenAI account',
			type: 'openAiApi',
			data: { apiKey: 'sk-scripted', url: modelUrl },
		},
	];
}

/** n8n's saved executions read through the REST API as the editor does ({ status, runData }). */
function restRuns(session) {
	const flatted = require(path.join(RUNTIME_DIR, 'node_modules', 'flatted'));
	const read = async (id) => {
		const { status, body } = await session.rest('GET', `/executions/${id}`);
		assert.equal(status, 200, `execution ${id}: ${JSON.stringify(body).slice(0, 300)}`);
		const { status: state, data } = body.data;
		// A running execution may have no run data yet.
		const result = data ? flatted.parse(data)?.resultData : undefined;
		return { status: state, runData: result?.runData ?? {}, error: result?.error };
	};
	return {
		/** "Execute workflow" from one trigger; resolves with the execution's id. */
		async start(workflowId, triggerName) {
			const { status, body } = await session.rest('POST', `/workflows/${workflowId}/run`, {
				triggerToStartFrom: { name: triggerName },
			});
			const id = body?.data?.executionId;
			assert.ok(status === 200 && id, `running ${workflowId}: ${status} ${JSON.stringify(body)}`);
			return id;
		},
		read,
		/** Waits until the execution has ended; fails on any end but success. */
		async finished(id, timeoutMs = 60_000) {
			let last;
			await waitFor(
				`execution ${id} to end`,
				async () => {
					last = await read(id);
					return !['new', 'running', 'waiting'].includes(last.status);
				},
				timeoutMs,
				{ intervalMs: 500 },
			);
			assert.equal(last.status, 'success', JSON.stringify(last.error ?? {}).slice(0, 500));
			return last;
		},
		/** Publishes (activates) a workflow as the editor's Publish button does. */
		async publish(workflowId) {
			const { body: got } = await session.rest('GET', `/workflows/${workflowId}`);
			const { status, body } = await session.rest('POST', `/workflows/${workflowId}/activate`, {
				versionId: got.data.versionId,
			});
			assert.equal(status, 200, `publishing ${workflowId}: ${JSON.stringify(body).slice(0, 500)}`);
		},
	};
}

/** The items a node output in its first run, on output `index` (an IF's false branch is 1). */
const itemsOf = (run, node, index = 0) =>
	run.runData[node]?.[0]?.data?.main?.[index]?.map((item) => item.json) ?? [];

/** The suite's tokens: the account of the credentials (ct_me) and two people writing with their own clients. */
const TOKENS = { me: 'e2e-examples-me', ann: 'e2e-examples-ann', bob: 'e2e-examples-bob' };
const SANDBOX_TOKENS = { [TOKENS.me]: 'ct_me', [TOKENS.ann]: 'ct_ann', [TOKENS.bob]: 'ct_bob' };
const BROWSER =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** One example's sandbox: its store, a client as one of TOKENS, its messages, and how often it was listed. */
function exampleClient({ workflow, sandbox }) {
	const call = async (token, method, route, form) => {
		const response = await fetch(`${sandbox.url}${route}`, {
			method,
			headers: {
				authorization: `Bearer ${token}`,
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: form && new URLSearchParams(form),
		});
		assert.equal(response.status, 200, `${method} ${route}: ${await response.clone().text()}`);
		return response;
	};
	const texts = (conversation) =>
		sandbox.store.listMessages({ conversation_id: conversation }).map((m) => m.message);
	const find = (conversation, pattern, what = String(pattern)) =>
		waitFor(
			`${what} in ${conversation}`,
			() =>
				sandbox.store
					.listMessages({ conversation_id: conversation })
					.find((m) => pattern.test(m.message)),
			60_000,
		);
	/** The list requests so far: a trigger's checks, once nothing else lists messages. */
	const listChecks = () =>
		sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/messages').length;
	return { id: workflow.id, sandbox, store: sandbox.store, call, texts, find, listChecks };
}

/** A link of a request message, by its label ("Yes, archive: <url>"). */
const linkIn = (text, label) => new URL(new RegExp(`^${label}: (\\S+)$`, 'm').exec(text)[1]);

/** A person opens a link of a request and presses its button (opening it alone decides nothing). */
async function press(link) {
	const page = await fetch(link, { headers: { 'user-agent': BROWSER } });
	assert.equal(page.status, 200);
	const pressed = await fetch(link, {
		method: 'POST',
		headers: { 'user-agent': BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
		body: '',
	});
	assert.equal(pressed.status, 200);
}

/** The ids of the archived conversations. */
const archived = (store) =>
	[...store.conversations.values()].filter((c) => c.archived_at !== null).map((c) => c.id);

module.exports = {
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
	archived,
};
