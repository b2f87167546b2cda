'use strict';
/** The Messaging node's other entry points as n8n calls them: webhook() (a resume link opened) and listSearch. */
const { NODE_TYPES, nodeTypes, additionalData, CREDENTIAL_REF } = require('./n8nCore');
const { WebhookContext, LoadOptionsContext } = require('n8n-core');
const { Workflow } = require('n8n-workflow');

/** A workflow of the Messaging node alone, as n8n builds one to call a webhook or a picker. */
function messagingAlone(parameters, nodeId) {
	/** @type {import('n8n-workflow').INode} */
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
	return {
		node,
		workflowData,
		workflow: new Workflow({ ...workflowData, nodeTypes, staticData: {} }),
	};
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
	const { node, workflowData, workflow } = messagingAlone(parameters, nodeId);
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
	// n8n builds it branded (createRunExecutionData); the fields are the same.
	const runExecutionData = /** @type {import('n8n-workflow').IRunExecutionData} */ (
		/** @type {unknown} */ ({
			version: 1, // the shape n8n 2.x stores and hands the node
			startData: {},
			resultData: { runData: {} },
			executionData: {
				contextData: {},
				nodeExecutionStack: [
					{ node, data: { main: [input.map((json) => ({ json }))] }, source: null },
				],
				waitingExecution: {},
				waitingExecutionSource: {},
				metadata: {},
			},
		})
	);

	/** @type {import('n8n-workflow').IWebhookData} */
	const webhookData = /** @type {any} */ ({
		httpMethod: method,
		node: node.name,
		path: nodeId,
		webhookDescription: { name: 'default', restartWebhook: true },
		workflowId: 'wf-1',
	});
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

/**
 * Calls a "From List" search method of the Messaging node as the editor does, through n8n-core's
 * LoadOptionsContext: `parameters` are the node's current parameters (the picker reads them).
 * @param {string} method
 * @param {{ parameters?: object, credentials: object, filter?: string, paginationToken?: string }} options
 */
async function searchList(method, { parameters = {}, credentials, filter, paginationToken }) {
	const { node, workflowData, workflow } = messagingAlone(parameters, '2');
	const data = { ...additionalData(credentials, workflowData), currentNodeParameters: parameters };
	const context = new LoadOptionsContext(workflow, node, data, 'messageId');
	return await NODE_TYPES['n8n-nodes-messaging.messaging'].methods.listSearch[method].call(
		context,
		filter,
		paginationToken,
	);
}

module.exports = { callMessagingWebhook, searchList };
