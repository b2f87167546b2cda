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

// The files bench (--compare) runs an older build through the same harness.
const dist = process.env.MESSAGING_DIST
	? path.resolve(process.env.MESSAGING_DIST)
	: path.join(__dirname, '..', '..', 'dist');
const { Messaging } = require(path.join(dist, 'nodes/Messaging/Messaging.node.js'));
const { MessagingTrigger } = require(
	path.join(dist, 'nodes/MessagingTrigger/MessagingTrigger.node.js'),
);
const { MessagingApi } = require(path.join(dist, 'credentials/MessagingApi.credentials.js'));
const { transportDefaults, DEFAULT_RETRY } = require(
	path.join(dist, 'nodes/shared/transport/index.js'),
);

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
		return [await Promise.all(items.map((item) => feedItem(this, item)))];
	}
}

/** The node as n8n derives an AI agent's tool from it: the same node under the name "<name><suffix>". */
function asTool(suffix) {
	const node = new Messaging();
	node.description = { ...node.description, name: `${node.description.name}${suffix}` };
	return node;
}

/**
 * An input item: its json, or `{ json, $binary: { field: { base64 | path, fileName, mimeType } } }` for
 * one with binary data, stored through n8n's prepareBinaryData as a node that produced a file would.
 */
async function feedItem(context, item) {
	if (!item || typeof item !== 'object' || !('$binary' in item)) return { json: item };
	const binary = {};
	for (const [field, file] of Object.entries(item.$binary)) {
		const bytes = file.path ? fs.readFileSync(file.path) : Buffer.from(file.base64 ?? '', 'base64');
		binary[field] = await context.helpers.prepareBinaryData(bytes, file.fileName, file.mimeType);
	}
	return { json: item.json ?? {}, binary };
}

const NODE_TYPES = {
	'test.feed': new Feed(),
	'n8n-nodes-messaging.messaging': new Messaging(),
	'n8n-nodes-messaging.messagingTool': asTool('Tool'),
	'n8n-nodes-messaging.messagingHitlTool': asTool('HitlTool'),
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
			if (typeName !== credentialType.name)
				throw new Error(`unexpected credential type ${typeName}`);
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
 * Runs Feed -> Messaging once. Returns { items, outputs, error, hints }: the Messaging node's (first)
 * output items, every output (with `onError: 'continueErrorOutput'` the second is the error output),
 * the error that stopped the run (if any), and the execution hints it added. `continueOnFail` is
 * `onError: 'continueRegularOutput'`.
 * @returns {Promise<import('./types').MessagingRun>}
 */
async function runMessagingNode({
	parameters,
	input = [{}],
	credentials,
	continueOnFail = false,
	onError = continueOnFail ? 'continueRegularOutput' : undefined,
	typeVersion = 1,
	type = 'n8n-nodes-messaging.messaging',
}) {
	const nodes = [
		{
			id: '1',
			name: 'Feed',
			type: 'test.feed',
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: JSON.stringify(input) },
		},
		{
			id: '2',
			name: 'Messaging',
			type,
			typeVersion,
			position: [200, 0],
			parameters,
			credentials: CREDENTIAL_REF,
			...(onError ? { onError } : {}),
		},
	];
	const connections = { Feed: { main: [[{ node: 'Messaging', type: 'main', index: 0 }]] } };
	const workflowData = {
		id: 'wf-1',
		name: 'test',
		nodes,
		connections,
		active: false,
		settings: {},
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const run = await new WorkflowExecute(additionalData(credentials, workflowData), 'manual').run({
		workflow,
		startNode: workflow.getNode('Feed'),
	});
	const taskData = run.data.resultData.runData.Messaging?.[0];
	return {
		items: taskData?.data?.main?.[0] ?? [],
		outputs: taskData?.data?.main ?? [],
		error: run.data.resultData.error ?? taskData?.error,
		hints: taskData?.hints ?? [],
	};
}

module.exports = { runMessagingNode, nodeTypes };

// ---------- send and wait ----------

/**
 * Starts Feed -> Messaging like runMessagingNode, but hands back the running execution so a test can
 * cancel it (n8n's cancel: the execution's AbortSignal fires). `done` resolves with { items, error,
 * waitTill }: waitTill is set when the node parked the execution (putExecutionToWait).
 * @returns {{ cancel: () => void, done: Promise<import('./types').ParkedRun> }}
 */
function startMessagingRun({ parameters, input = [{}], credentials, nodeId = '2' }) {
	const nodes = [
		{
			id: '1',
			name: 'Feed',
			type: 'test.feed',
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: JSON.stringify(input) },
		},
		{
			id: nodeId,
			name: 'Messaging',
			type: 'n8n-nodes-messaging.messaging',
			typeVersion: 1,
			position: [200, 0],
			parameters,
			credentials: CREDENTIAL_REF,
		},
	];
	const connections = { Feed: { main: [[{ node: 'Messaging', type: 'main', index: 0 }]] } };
	const workflowData = {
		id: 'wf-1',
		name: 'test',
		nodes,
		connections,
		active: false,
		settings: {},
	};
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
 * @param {{ parameters: object, credentials: object, method?: string, url: string, headers?: Record<string, string>, body?: unknown, input?: object[], nodeId?: string }} options
 */
async function callMessagingWebhook({
	parameters,
	credentials,
	method = 'GET',
	url,
	headers = {},
	body,
	input = [{}],
	nodeId = '2',
}) {
	const { WebhookContext } = require('n8n-core');
	const node = {
		id: nodeId,
		name: 'Messaging',
		type: 'n8n-nodes-messaging.messaging',
		typeVersion: 1,
		position: [200, 0],
		parameters,
		credentials: CREDENTIAL_REF,
	};
	const workflowData = {
		id: 'wf-1',
		name: 'test',
		nodes: [node],
		connections: {},
		active: false,
		settings: {},
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const parsed = new URL(url, 'http://localhost:5678');
	const request = {
		method,
		url,
		originalUrl: url,
		headers: {
			'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36',
			...headers,
		},
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
	const data = {
		...additionalData(credentials, workflowData),
		httpRequest: request,
		httpResponse: response,
	};
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [
				{ node, data: { main: [input.map((json) => ({ json }))] }, source: null },
			],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	};
	const webhookData = {
		httpMethod: method,
		node: node.name,
		path: nodeId,
		webhookDescription: { name: 'default', restartWebhook: true },
		workflowId: 'wf-1',
	};
	const context = new WebhookContext(
		workflow,
		node,
		data,
		'webhook',
		webhookData,
		[],
		runExecutionData,
	);
	const result = await NODE_TYPES['n8n-nodes-messaging.messaging'].webhook.call(context);
	return { ...answer, result };
}

module.exports.startMessagingRun = startMessagingRun;
module.exports.callMessagingWebhook = callMessagingWebhook;

/**
 * Calls a "From List" search method of the Messaging node as the editor does, through n8n-core's
 * LoadOptionsContext: `parameters` are the node's current parameters (the picker reads them).
 * @param {string} method
 * @param {{ parameters?: object, credentials: object, filter?: string, paginationToken?: string }} options
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
	const workflowData = {
		id: 'wf-1',
		name: 'test',
		nodes: [node],
		connections: {},
		active: false,
		settings: {},
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const data = { ...additionalData(credentials, workflowData), currentNodeParameters: parameters };
	const context = new LoadOptionsContext(workflow, node, data, 'messageId');
	return await NODE_TYPES['n8n-nodes-messaging.messaging'].methods.listSearch[method].call(
		context,
		filter,
		paginationToken,
	);
}

module.exports.searchList = searchList;

// ---------- The Messaging Trigger as a versioned node: version 1 through PollContext, version 2 as n8n runs a trigger() ----------
// The DI container of n8n-core's own @n8n/di copy, where TriggersAndPollers is registered.
const { Container } = require(
	require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
);
const { TriggerContext, TriggersAndPollers } = require('n8n-core');

const TRIGGER_TYPE = 'n8n-nodes-messaging.messagingTrigger';
const TRIGGER_FILE = path.join(dist, 'nodes/MessagingTrigger/MessagingTrigger.node.js');

/** n8n-core's TriggerContext, with its logger observed (the trigger logs when a check is over). */
class ObservedTriggerContext extends TriggerContext {
	get logger() {
		const context = this;
		const log = (level) => (message, meta) => context.onLog?.(level, message, meta);
		return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
	}
}

/** Node types that resolve a versioned node to the version a node asks for, as n8n's NodeTypes does. */
function versionedNodeTypes(triggerType = new (require(TRIGGER_FILE).MessagingTrigger)()) {
	const types = { ...NODE_TYPES, [TRIGGER_TYPE]: triggerType };
	const resolve = (type, version) => {
		const found = types[type];
		return found && 'nodeVersions' in found ? found.getNodeType(version) : found;
	};
	return {
		getByName: (type) => types[type],
		getByNameAndVersion: resolve,
		getKnownTypes: () => ({}),
	};
}

/**
 * The trigger's module loaded afresh, as a new n8n process loads it: nothing it keeps in memory
 * (the outcomes of executions it started) survives from an earlier "process".
 */
function loadTriggerInNewProcess() {
	const n8nWorkflow = require('n8n-workflow'); // n8n's own module stays loaded across the package's "processes"
	let TriggerClass;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => n8nWorkflow);
		TriggerClass = require(TRIGGER_FILE).MessagingTrigger;
	});
	return new TriggerClass();
}

function triggerNode(typeVersion, parameters) {
	return {
		id: 'node-trigger-1',
		name: 'Messaging Trigger',
		type: TRIGGER_TYPE,
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: CREDENTIAL_REF,
	};
}

/** Version 1 (polling) through n8n-core's PollContext; static data persists between polls. */
function createPollingTrigger({ parameters = {}, credentials, mode = 'trigger' }) {
	const node = triggerNode(1, parameters);
	const workflowData = {
		id: 'wf-trigger',
		name: 'trigger',
		nodes: [node],
		connections: {},
		active: true,
		settings: {},
	};
	const types = versionedNodeTypes();
	const workflow = new Workflow({ ...workflowData, nodeTypes: types, staticData: {} });
	const data = additionalData(credentials, workflowData);
	const nodeType = types.getByNameAndVersion(TRIGGER_TYPE, 1);
	return {
		workflow,
		state: () => workflow.staticData[`node:${node.name}`],
		async poll(pollMode = mode) {
			const context = new PollContext(
				workflow,
				workflow.getNode(node.name),
				data,
				pollMode,
				'trigger',
			);
			return await nodeType.poll.call(context);
		},
	};
}

/**
 * "Fetch Test Event" of a trigger() version: a manual run of a one-node workflow through n8n-core's
 * WorkflowExecute, which calls trigger(), then manualTriggerFunction, then waits for the emit.
 * Returns { items, error }.
 */
async function fetchTestEvent({ parameters = {}, credentials, typeVersion = 2 }) {
	const node = triggerNode(typeVersion, parameters);
	const workflowData = {
		id: 'wf-trigger',
		name: 'trigger',
		nodes: [node],
		connections: {},
		active: false,
		settings: {},
	};
	const workflow = new Workflow({
		...workflowData,
		nodeTypes: versionedNodeTypes(),
		staticData: {},
	});
	const run = await new WorkflowExecute(additionalData(credentials, workflowData), 'manual').run({
		workflow,
		startNode: workflow.getNode(node.name),
	});
	const taskData = run.data.resultData.runData[node.name]?.[0];
	return {
		items: taskData?.data?.main?.[0] ?? [],
		error: run.data.resultData.error ?? taskData?.error,
		staticData: workflow.staticData,
	};
}

/**
 * A trigger() version of the Messaging Trigger active in a simulated n8n: each "process" loads the
 * node afresh and gets n8n-core's TriggerContext with an emit that does what n8n's does (save the
 * static data, then start an execution unless one with the same deduplication key exists, in which
 * case donePromise resolves with nothing). The test decides how each execution ends, and can stop,
 * crash and restart the process; only what was saved survives a restart.
 *
 * Time is jest's fake clock (setTimeout only): `tick()` runs the next timer and waits until the
 * trigger has scheduled another one, i.e. until the check it started is over.
 */
function createTriggerHost({
	parameters = {},
	credentials,
	typeVersion = 2,
	workflowId = 'wf-trigger',
}) {
	const node = triggerNode(typeVersion, parameters);
	const workflowData = {
		id: workflowId,
		name: 'trigger',
		nodes: [node],
		connections: {},
		active: true,
		settings: {},
	};
	const host = {
		/** What n8n's database holds: the static data as last saved. */
		saved: {},
		saves: 0,
		/** Every execution started: { items, json, key, processNumber, startedAt, end(kind) }. */
		executions: [],
		/** Emits dropped because an execution with their key existed. */
		duplicates: [],
		/** Errors the trigger reported through saveFailedExecution. */
		reported: [],
		emitErrors: [],
		/** What the trigger logged (not debug). */
		logs: [],
		checksDone: 0,
		checksStarted: 0,
		process: null,
		processes: 0,
	};
	const keys = new Set();

	const save = (proc) => {
		if (!proc.alive) return;
		const staticData = proc.workflow.staticData;
		if (staticData.__dataChanged !== true) return;
		const copy = JSON.parse(JSON.stringify(staticData));
		delete copy.__dataChanged;
		host.saved = copy;
		host.saves += 1;
		staticData.__dataChanged = false;
	};

	/**
	 * Activates the trigger, by default in a new process (`sameProcess`: n8n re-activating a saved workflow).
	 * `dieAtEmit`: the process is killed at its first emit, after n8n started saving static data and before
	 * it created the execution (also settable later as `host.process.dieAtEmit`). `keylessEmit`: an emit of
	 * three parameters that drops the deduplication key, as n8n before 2.20 has it.
	 */
	host.start = async ({
		activation = 'init',
		sameProcess = false,
		dieAtEmit = false,
		keylessEmit = false,
	} = {}) => {
		const checksBefore = host.checksDone; // the first check runs during activation
		const triggerType = sameProcess ? host.triggerType : loadTriggerInNewProcess();
		host.triggerType = triggerType;
		const types = versionedNodeTypes(triggerType);
		const workflow = new Workflow({
			...workflowData,
			nodeTypes: types,
			staticData: JSON.parse(JSON.stringify(host.saved)),
		});
		const proc = { workflow, alive: true, dieAtEmit, number: ++host.processes };
		const emit = (data, responsePromise, donePromise, deduplicationKey) => {
			if (!proc.alive) return;
			save(proc); // n8n starts saving static data (not awaited) before it creates the execution
			if (proc.dieAtEmit) {
				proc.alive = false;
				return;
			}
			if (deduplicationKey !== undefined && keys.has(deduplicationKey)) {
				host.duplicates.push(deduplicationKey);
				void Promise.resolve().then(() => donePromise?.resolve(undefined));
				return;
			}
			if (deduplicationKey !== undefined) keys.add(deduplicationKey);
			const execution = {
				items: data[0],
				json: data[0].map((item) => item.json),
				key: deduplicationKey,
				processNumber: proc.number,
				startedAt: Date.now(),
				status: 'running',
				end(kind) {
					execution.status = kind;
					if (!donePromise) return;
					if (kind === 'success')
						donePromise.resolve({
							status: 'success',
							finished: true,
							data: { resultData: { runData: {} } },
						});
					else if (kind === 'nodeError')
						donePromise.resolve({
							status: 'error',
							finished: false,
							data: {
								resultData: {
									error: new NodeOperationError(proc.workflow.getNode(node.name), 'A node failed'),
									runData: {},
								},
							},
						});
					else if (kind === 'crashed')
						donePromise.resolve({
							status: 'crashed',
							finished: false,
							data: {
								resultData: {
									error: {
										name: 'WorkflowCrashedError',
										message: 'Workflow did not finish, possible out-of-memory issue',
									},
									runData: {},
								},
							},
						});
					else if (kind === 'workerKilled')
						donePromise.resolve({
							status: 'error',
							finished: false,
							data: {
								resultData: {
									error: {
										message:
											'This execution failed to be processed too many times and will no longer retry.',
									},
									runData: {},
								},
							},
						});
					else if (kind === 'notStarted')
						donePromise.reject(new Error('Could not create the execution'));
					else if (kind === 'shutdown')
						donePromise.reject(new SystemShutdownExecutionCancelledError('1'));
					else if (kind === 'stopped') donePromise.reject(new ManualExecutionCancelledError('1'));
					else throw new Error(`unknown end ${kind}`);
				},
			};
			host.executions.push(execution);
		};
		const emitError = (error) => host.emitErrors.push(error);
		const saveFailedExecution = (error) => host.reported.push(error);
		const data = additionalData(credentials, workflowData);
		const context = new ObservedTriggerContext(
			workflow,
			workflow.getNode(node.name),
			data,
			'trigger',
			activation,
			emit,
			emitError,
			saveFailedExecution,
		);
		if (keylessEmit) {
			const keyed = context.emit.bind(context);
			context.emit = (items, responsePromise, donePromise) =>
				keyed(items, responsePromise, donePromise);
		}
		context.onLog = (level, message) => {
			if (level === 'debug' && message.startsWith('Messaging Trigger: next check in'))
				host.checksDone += 1;
			if (level !== 'debug') host.logs.push(`${level}: ${message}`);
		};
		proc.response = await Container.get(TriggersAndPollers).runTriggerFunction(
			workflow,
			workflow.getNode(node.name),
			() => context,
			data,
			'trigger',
			activation,
		);
		save(proc); // and saves it, awaited, at the end of activation
		host.activatedAt = Date.now();
		host.process = proc;
		await host.idle(checksBefore);
		return host;
	};

	/**
	 * Graceful: n8n calls closeFunction (and saves nothing itself); running executions may still end,
	 * also while closeFunction waits for them (time moves on when nothing else does).
	 */
	host.stop = async () => {
		const proc = host.process;
		host.process = null;
		let closed = false;
		const closing = Promise.resolve(proc.response?.closeFunction?.()).finally(() => {
			closed = true;
		});
		for (let still = 0; !closed; still++) {
			if (still > 200 && jest.getTimerCount() > 0) {
				still = 0;
				await jest.advanceTimersToNextTimerAsync();
			}
			await new Promise((resolve) => setImmediate(resolve));
		}
		await closing;
		proc.alive = false;
	};

	/** The process dies: nothing more is saved, its executions never report back to it. */
	host.crash = async () => {
		const proc = host.process;
		host.process = null;
		proc.alive = false;
		void proc.response?.closeFunction?.(); // only to stop its timers in this test process
	};

	/**
	 * Waits until the check under way is over (the trigger logs when it schedules the next one). A check
	 * that waits on a fake timer (a slow service, a retry) gets it run once nothing else moves.
	 */
	host.idle = async (since = host.checksStarted) => {
		for (let turns = 0, still = 0; host.checksDone <= since; turns++, still++) {
			if (turns > 1_000_000) throw new Error('the check never ended');
			if (still > 2_000 && jest.getTimerCount() > 0) {
				still = 0;
				await jest.advanceTimersToNextTimerAsync();
			}
			await new Promise((resolve) => setImmediate(resolve));
		}
		await new Promise((resolve) => setImmediate(resolve));
	};

	/** Runs the wait before the next check, and that check; returns the fake time from now to the check's end. */
	host.tick = async () => {
		const since = host.checksDone;
		host.checksStarted = since;
		const before = Date.now();
		await jest.advanceTimersToNextTimerAsync();
		await host.idle(since);
		return Date.now() - before;
	};

	/** The items of the executions started so far, flattened. */
	host.delivered = () => host.executions.flatMap((e) => e.json);
	host.state = () => host.process?.workflow.staticData[`node:${node.name}`];
	host.savedState = () => host.saved[`node:${node.name}`];
	return host;
}

const {
	NodeOperationError,
	ManualExecutionCancelledError,
	SystemShutdownExecutionCancelledError,
} = require('n8n-workflow');

module.exports.versionedNodeTypes = versionedNodeTypes;
module.exports.createPollingTrigger = createPollingTrigger;
module.exports.fetchTestEvent = fetchTestEvent;
module.exports.createTriggerHost = createTriggerHost;
/**
 * Fake timers for driving a trigger: loopback I/O and the event loop's own turns stay real.
 * @type {import('@jest/types').Config.FakeTimersConfig}
 */
module.exports.TRIGGER_FAKE_TIMERS = {
	doNotFake: [
		'nextTick',
		'setImmediate',
		'clearImmediate',
		'queueMicrotask',
		'performance',
		'hrtime',
	],
};
