'use strict';
/**
 * Runs the package's compiled nodes through n8n-core's real execution code (WorkflowExecute for the
 * Messaging node, PollContext for the trigger), with a credentials helper that applies the credential
 * type's own `authenticate` function, as n8n does. Nothing here mocks a request: they reach the sandbox.
 * The setting is ./n8nCore.js; the node's webhook and pickers ./n8nContexts.js; the trigger ./n8nTrigger.js
 * and ./triggerHost.js.
 */
// First: it sets n8n's environment up before n8n-core is loaded.
const { nodeTypes, additionalData, credentialReads, CREDENTIAL_REF } = require('./n8nCore');
const { WorkflowExecute } = require('n8n-core');
const { Workflow } = require('n8n-workflow');

/**
 * @typedef {object} RunOptions
 * @property {object} parameters the Messaging node's parameters
 * @property {object} credentials the credential's data
 * @property {unknown[]} [input] Feed's items (see n8nCore.js's feedItem)
 * @property {string} [nodeId]
 * @property {import('n8n-workflow').INode['onError']} [onError]
 * @property {number} [typeVersion]
 * @property {string} [type]
 */

/**
 * Runs Feed -> Messaging once. Returns { items, outputs, error, hints }: the Messaging node's (first)
 * output items, every output (with `onError: 'continueErrorOutput'` the second is the error output),
 * the error that stopped the run (if any), and the execution hints it added. `continueOnFail` is
 * `onError: 'continueRegularOutput'`.
 * @param {RunOptions & { continueOnFail?: boolean }} options
 * @returns {Promise<import('./types').MessagingRun>}
 */
async function runMessagingNode({
	continueOnFail = false,
	onError = continueOnFail ? 'continueRegularOutput' : undefined,
	...run
}) {
	const { items, outputs, error, hints } = await startMessagingRun({ ...run, onError }).done;
	return { items, outputs, error, hints };
}

/**
 * Starts Feed -> Messaging like runMessagingNode, but hands back the running execution so a test can
 * cancel it (n8n's cancel: the execution's AbortSignal fires). `done` resolves with runMessagingNode's result and
 * { waitTill, status }: waitTill is set when the node parked the execution (putExecutionToWait).
 * @param {RunOptions} options
 * @returns {{ cancel: () => void, done: Promise<import('./types').ParkedRun> }}
 */
function startMessagingRun({
	parameters,
	input = [{}],
	credentials,
	nodeId = '2',
	onError,
	typeVersion = 1,
	type = 'n8n-nodes-messaging.messaging',
}) {
	/** @type {import('n8n-workflow').INode[]} */
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
			type,
			typeVersion,
			position: [200, 0],
			parameters,
			credentials: CREDENTIAL_REF,
			...(onError ? { onError } : {}),
		},
	];
	/** @type {import('n8n-workflow').IConnections} */
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
		return /** @type {import('./types').ParkedRun} */ ({
			items: taskData?.data?.main?.[0] ?? [],
			outputs: taskData?.data?.main ?? [],
			error: run.data.resultData.error ?? taskData?.error,
			hints: taskData?.hints ?? [],
			waitTill: run.waitTill ?? run.data.waitTill,
			status: run.status,
		});
	});
	return { cancel: () => execution.cancel(), done };
}

module.exports = {
	runMessagingNode,
	nodeTypes,
	additionalData,
	credentialReads,
	startMessagingRun,
	...require('./n8nContexts'),
	...require('./n8nTrigger'),
	...require('./triggerHost'),
};
