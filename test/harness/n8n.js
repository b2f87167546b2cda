'use strict';
/**
 * Runs the package's compiled nodes through n8n-core's real execution code (WorkflowExecute for the
 * Messaging node, PollContext for the trigger), with a credentials helper that applies the credential
 * type's own `authenticate` function, as n8n does. Nothing here mocks a request: they reach the sandbox.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-messaging-test-'));
}
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS = 'false';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_LOG_LEVEL ??= 'silent'; // n8n logs every node error; the tests assert on the errors themselves
require('reflect-metadata');
const { WorkflowExecute, ExecutionLifecycleHooks, PollContext } = require('n8n-core');
const { Workflow } = require('n8n-workflow');

const dist = path.join(__dirname, '..', '..', 'dist');
const { Messaging } = require(path.join(dist, 'nodes/Messaging/Messaging.node.js'));
const { MessagingTrigger } = require(path.join(dist, 'nodes/MessagingTrigger/MessagingTrigger.node.js'));
const { MessagingApi } = require(path.join(dist, 'credentials/MessagingApi.credentials.js'));
const { transportDefaults, DEFAULT_RETRY } = require(path.join(dist, 'nodes/shared/transport/index.js'));

// Real backoff waits seconds per retry; a fast policy keeps every retry path tested without the wait.
// The default policy's own numbers are tested in test/unit/transport.test.js.
transportDefaults.retry = { ...DEFAULT_RETRY, baseDelayMs: 5, maxDelayMs: 20 };

/** A start node that emits the items a test gives it, so the node under test sees real input items. */
class Feed {
	description = {
		displayName: 'Feed',
		name: 'feed',
		group: ['input'],
		version: 1,
		description: 'Test input',
		defaults: { name: 'Feed' },
		inputs: [],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};
	async execute() {
		const items = JSON.parse(this.getNodeParameter('items', 0));
		return [items.map((json) => ({ json }))];
	}
}

const NODE_TYPES = {
	'test.feed': new Feed(),
	'n8n-nodes-messaging.messaging': new Messaging(),
	'n8n-nodes-messaging.messagingTrigger': new MessagingTrigger(),
};
const credentialType = new MessagingApi();

const nodeTypes = {
	getByName: (type) => NODE_TYPES[type],
	getByNameAndVersion: (type) => NODE_TYPES[type],
	getKnownTypes: () => ({}),
};

function credentialsHelper(credentialData) {
	return {
		getParentTypes: () => [],
		getCredentialsProperties: () => credentialType.properties,
		isCredentialUsableByNode: () => true,
		async getDecrypted() {
			return { ...credentialData };
		},
		async preAuthentication() {
			return undefined;
		},
		/** As n8n's CredentialsHelper.authenticate does for a function: called unbound, its result is the request. */
		async authenticate(credentials, typeName, requestOptions) {
			if (typeName !== credentialType.name) throw new Error(`unexpected credential type ${typeName}`);
			const { authenticate } = credentialType;
			return await authenticate(credentials, requestOptions);
		},
	};
}

function additionalData(credentials, workflowData) {
	return {
		credentialsHelper: credentialsHelper(credentials),
		hooks: new ExecutionLifecycleHooks('manual', 'test-execution', workflowData),
		executionId: 'test-execution',
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		variables: {},
		userId: 'test-user',
		currentNodeParameters: undefined,
		executionTimeoutTimestamp: undefined,
	};
}

const CREDENTIAL_REF = { messagingApi: { id: 'cred-1', name: 'Messaging account' } };

/**
 * Runs Feed -> Messaging once. Returns { items, error, hints }: the Messaging node's output items,
 * the error that stopped the run (if any), and the execution hints it added.
 */
async function runMessagingNode({ parameters, input = [{}], credentials, continueOnFail = false }) {
	const nodes = [
		{ id: '1', name: 'Feed', type: 'test.feed', typeVersion: 1, position: [0, 0], parameters: { items: JSON.stringify(input) } },
		{
			id: '2',
			name: 'Messaging',
			type: 'n8n-nodes-messaging.messaging',
			typeVersion: 1,
			position: [200, 0],
			parameters,
			credentials: CREDENTIAL_REF,
			...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
		},
	];
	const connections = { Feed: { main: [[{ node: 'Messaging', type: 'main', index: 0 }]] } };
	const workflowData = { id: 'wf-1', name: 'test', nodes, connections, active: false, settings: {} };
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const run = await new WorkflowExecute(additionalData(credentials, workflowData), 'manual').run({
		workflow,
		startNode: workflow.getNode('Feed'),
	});
	const taskData = run.data.resultData.runData.Messaging?.[0];
	return {
		items: taskData?.data?.main?.[0] ?? [],
		error: run.data.resultData.error ?? taskData?.error,
		hints: taskData?.hints ?? [],
	};
}

/**
 * A trigger node inside a workflow whose static data persists between calls of `poll()`,
 * as an active workflow's does in n8n.
 */
function createTrigger({ parameters = {}, credentials, mode = 'trigger' }) {
	const node = {
		id: '1',
		name: 'Messaging Trigger',
		type: 'n8n-nodes-messaging.messagingTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: CREDENTIAL_REF,
	};
	const workflowData = { id: 'wf-trigger', name: 'trigger', nodes: [node], connections: {}, active: true, settings: {} };
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const data = additionalData(credentials, workflowData);
	const trigger = NODE_TYPES['n8n-nodes-messaging.messagingTrigger'];
	return {
		workflow,
		/** The trigger's stored state, exactly as n8n keeps it. */
		state: () => workflow.staticData[`node:${node.name}`],
		async poll(pollMode = mode) {
			const context = new PollContext(workflow, workflow.getNode(node.name), data, pollMode, 'trigger');
			return await trigger.poll.call(context);
		},
	};
}

module.exports = { runMessagingNode, createTrigger, nodeTypes };

// ---------- send and wait ----------

/**
 * Starts Feed -> Messaging like runMessagingNode, but hands back the running execution so a test can
 * cancel it (n8n's cancel: the execution's AbortSignal fires). `done` resolves with { items, error,
 * waitTill }: waitTill is set when the node parked the execution (putExecutionToWait).
 */
function startMessagingRun({ parameters, input = [{}], credentials, nodeId = '2' }) {
	const nodes = [
		{ id: '1', name: 'Feed', type: 'test.feed', typeVersion: 1, position: [0, 0], parameters: { items: JSON.stringify(input) } },
		{ id: nodeId, name: 'Messaging', type: 'n8n-nodes-messaging.messaging', typeVersion: 1, position: [200, 0], parameters, credentials: CREDENTIAL_REF },
	];
	const connections = { Feed: { main: [[{ node: 'Messaging', type: 'main', index: 0 }]] } };
	const workflowData = { id: 'wf-1', name: 'test', nodes, connections, active: false, settings: {} };
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const execution = new WorkflowExecute(additionalData(credentials, workflowData), 'manual').run({
		workflow,
		startNode: workflow.getNode('Feed'),
	});
	const done = Promise.resolve(execution).then((run) => {
		const taskData = run.data.resultData.runData.Messaging?.[0];
		return {
			items: taskData?.data?.main?.[0] ?? [],
			error: run.data.resultData.error ?? taskData?.error,
			waitTill: run.waitTill ?? run.data.waitTill,
			status: run.status,
		};
	});
	return { cancel: () => execution.cancel(), done };
}

/**
 * Calls the Messaging node's webhook() through n8n-core's WebhookContext, as n8n does when a resume link
 * is opened: `url` is the request's path and query, `input` the waiting node's input items.
 * Resolves with the HTTP answer the node wrote and the webhook's result.
 */
async function callMessagingWebhook({ parameters, credentials, method = 'GET', url, headers = {}, body, input = [{}], nodeId = '2' }) {
	const { WebhookContext } = require('n8n-core');
	const node = { id: nodeId, name: 'Messaging', type: 'n8n-nodes-messaging.messaging', typeVersion: 1, position: [200, 0], parameters, credentials: CREDENTIAL_REF };
	const workflowData = { id: 'wf-1', name: 'test', nodes: [node], connections: {}, active: false, settings: {} };
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const parsed = new URL(url, 'http://localhost:5678');
	const request = {
		method,
		url,
		originalUrl: url,
		headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36', ...headers },
		query: Object.fromEntries(parsed.searchParams),
		params: {},
		body,
	};
	const answer = { status: undefined, headers: {}, body: undefined };
	const response = {
		set statusCode(value) {
			answer.status = value;
		},
		get statusCode() {
			return answer.status;
		},
		setHeader: (name, value) => (answer.headers[name.toLowerCase()] = value),
		end: (text) => (answer.body = text),
	};
	const data = { ...additionalData(credentials, workflowData), httpRequest: request, httpResponse: response };
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [{ node, data: { main: [input.map((json) => ({ json }))] }, source: null }],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	};
	const webhookData = { httpMethod: method, node: node.name, path: nodeId, webhookDescription: { name: 'default', restartWebhook: true }, workflowId: 'wf-1' };
	const context = new WebhookContext(workflow, node, data, 'webhook', webhookData, [], runExecutionData);
	const result = await NODE_TYPES['n8n-nodes-messaging.messaging'].webhook.call(context);
	return { ...answer, result };
}

module.exports.startMessagingRun = startMessagingRun;
module.exports.callMessagingWebhook = callMessagingWebhook;

/**
 * Calls a "From List" search method of the Messaging node as the editor does, through n8n-core's
 * LoadOptionsContext: `parameters` are the node's current parameters (the picker reads them).
 */
async function searchList(method, { parameters = {}, credentials, filter, paginationToken }) {
	const { LoadOptionsContext } = require('n8n-core');
	const node = {
		id: '2',
		name: 'Messaging',
		type: 'n8n-nodes-messaging.messaging',
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: CREDENTIAL_REF,
	};
	const workflowData = { id: 'wf-1', name: 'test', nodes: [node], connections: {}, active: false, settings: {} };
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const data = { ...additionalData(credentials, workflowData), currentNodeParameters: parameters };
	const context = new LoadOptionsContext(workflow, node, data, 'messageId');
	return await NODE_TYPES['n8n-nodes-messaging.messaging'].methods.listSearch[method].call(context, filter, paginationToken);
}

module.exports.searchList = searchList;
