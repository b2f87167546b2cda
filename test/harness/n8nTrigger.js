'use strict';
/** The Messaging Trigger as a versioned node: version 1 through PollContext, version 2 as n8n runs a trigger(). */
const { dist, NODE_TYPES, additionalData, CREDENTIAL_REF } = require('./n8nCore');
const path = require('node:path');
const { WorkflowExecute, PollContext, TriggerContext, TriggersAndPollers } = require('n8n-core');
const { Workflow } = require('n8n-workflow');

// The DI container of n8n-core's own @n8n/di copy, where TriggersAndPollers is registered.
const { Container } = require(
	require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
);

const TRIGGER_TYPE = 'n8n-nodes-messaging.messagingTrigger';
const TRIGGER_FILE = path.join(dist, 'nodes/MessagingTrigger/MessagingTrigger.node.js');

/** n8n-core's TriggerContext, with its logger observed (the trigger logs when a check is over). */
class ObservedTriggerContext extends TriggerContext {
	/** Told each log line: set by the test's host. @type {((level: string, message: string, meta?: object) => void) | undefined} */
	onLog;

	/** @returns {any} n8n's logger as far as the trigger uses it */
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
	/** @type {new () => import('n8n-workflow').IVersionedNodeType} */
	let TriggerClass;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => n8nWorkflow);
		TriggerClass = require(TRIGGER_FILE).MessagingTrigger;
	});
	return new TriggerClass();
}

/** @returns {import('n8n-workflow').INode} */
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

/**
 * Version 1 (polling) through n8n-core's PollContext; static data persists between polls.
 * @param {{ parameters?: object, credentials: object, mode?: import('n8n-workflow').WorkflowExecuteMode }} options
 */
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
		/** @param {import('n8n-workflow').WorkflowExecuteMode} [pollMode] */
		async poll(pollMode = mode) {
			const context = new PollContext(
				workflow,
				workflow.getNode(node.name),
				data,
				pollMode,
				'init', // the activation mode: the workflow was active when n8n started
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
 * Fake timers for driving a trigger: loopback I/O and the event loop's own turns stay real.
 * @type {import('@jest/types').Config.FakeTimersConfig}
 */
const TRIGGER_FAKE_TIMERS = {
	doNotFake: [
		'nextTick',
		'setImmediate',
		'clearImmediate',
		'queueMicrotask',
		'performance',
		'hrtime',
	],
};

module.exports = {
	TRIGGER_TYPE,
	ObservedTriggerContext,
	Container,
	TriggersAndPollers,
	versionedNodeTypes,
	loadTriggerInNewProcess,
	triggerNode,
	createPollingTrigger,
	fetchTestEvent,
	TRIGGER_FAKE_TIMERS,
};
