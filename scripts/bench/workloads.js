'use strict';
/**
 * What the benchmark runs: per workload (get, mute, send, getMany) the node of each variant, A (the
 * Messaging node), F (the floor node), B (n8n's HTTP Request node), each in a workflow of its own; C (the
 * plain undici script) runs outside n8n. Also the plans: which variants run idle and rate-limited.
 */
const { byId, chainWorkflow, manualTrigger } = require('../lib/workflows');
const { TOKEN, messageIds } = require('./service');

const CREDENTIAL = { messagingApi: { id: 'benchMessagingCred', name: 'Messaging (bench)' } };
/** B authenticates the way a user would store a token: a Header Auth credential. */
const HEADER_CREDENTIAL = {
	httpHeaderAuth: { id: 'benchHeaderAuth01', name: 'Messaging token (Header Auth)' },
};

const CONTINUE = { onError: 'continueRegularOutput' };
const RETRY = { retryOnFail: true }; // n8n's defaults: 3 tries, 1 s apart, the whole node each time

/** The credentials the workflows use, as `n8n import:credentials` reads them. */
function credentials(baseUrl) {
	return [
		{
			id: CREDENTIAL.messagingApi.id,
			name: CREDENTIAL.messagingApi.name,
			type: 'messagingApi',
			data: { baseUrl, accessToken: TOKEN, timestampUnit: 'seconds', ownContactId: '' },
		},
		{
			id: HEADER_CREDENTIAL.httpHeaderAuth.id,
			name: HEADER_CREDENTIAL.httpHeaderAuth.name,
			type: 'httpHeaderAuth',
			data: { name: 'Authorization', value: `Bearer ${TOKEN}` },
		},
	];
}

/** Start -> (the input ids, one item each) -> Target, the node measured. */
function workflow(id, target, inputIds, settings = {}) {
	const input = inputIds
		? [
				{
					id: 'input',
					name: 'Input',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					parameters: { mode: 'raw', jsonOutput: JSON.stringify({ ids: inputIds }), options: {} },
				},
				{
					id: 'split',
					name: 'Items',
					type: 'n8n-nodes-base.splitOut',
					typeVersion: 1,
					parameters: { fieldToSplitOut: 'ids', options: {} },
				},
			]
		: [];
	return chainWorkflow({
		id,
		nodes: [manualTrigger(), ...input, { id: 'target', name: 'Target', ...target, ...settings }],
	});
}

function messagingNode(parameters, parallel) {
	return {
		type: 'n8n-nodes-messaging.messaging',
		typeVersion: 1,
		credentials: CREDENTIAL,
		parameters: { ...parameters, options: { ...(parallel ? { parallelRequests: parallel } : {}) } },
	};
}

/** F: the least any n8n node can do per item (scripts/bench/floor-node): one expression, one httpRequest. */
function floorNode(parameters, inFlight) {
	return {
		type: 'n8n-nodes-bench-floor.benchFloor',
		typeVersion: 1,
		parameters: { method: 'GET', authorization: `Bearer ${TOKEN}`, ...parameters, inFlight },
	};
}

function httpNode(baseUrl, parameters) {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		credentials: HEADER_CREDENTIAL,
		parameters: {
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			options: {},
			...parameters,
			url: `=${baseUrl}/v1/${parameters.url}`,
		},
	};
}

function formBody(fields) {
	return {
		sendBody: true,
		contentType: 'form-urlencoded',
		bodyParameters: {
			parameters: Object.entries(fields).map(([name, value]) => ({ name, value })),
		},
	};
}

/** Per workload: its input items and its A (given Parallel Requests), F (given in-flight) and B nodes. */
function variants(baseUrl, service, sizes) {
	const sendItems = Array.from({ length: sizes.send }, (_, i) => i);
	return {
		get: {
			items: messageIds(sizes),
			A: (p) =>
				messagingNode(
					{ resource: 'message', operation: 'get', messageId: byId('={{ $json.ids }}') },
					p,
				),
			F: (p) => floorNode({ url: `=${baseUrl}/v1/messages/{{ $json.ids }}` }, p),
			B: httpNode(baseUrl, { method: 'GET', url: 'messages/{{ $json.ids }}' }),
		},
		mute: {
			items: service.muteIds,
			A: (p) =>
				messagingNode(
					{ resource: 'conversation', operation: 'mute', conversationId: byId('={{ $json.ids }}') },
					p,
				),
			F: (p) =>
				floorNode(
					{
						method: 'PUT',
						url: `=${baseUrl}/v1/conversations/{{ $json.ids }}`,
						body: 'is_muted=true',
					},
					p,
				),
			B: httpNode(baseUrl, {
				method: 'PUT',
				url: 'conversations/{{ $json.ids }}',
				...formBody({ is_muted: 'true' }),
			}),
		},
		send: {
			items: sendItems,
			A: (p) =>
				messagingNode(
					{
						resource: 'message',
						operation: 'send',
						conversationId: byId(service.sendConversation),
						text: '=n{{ $json.ids }}',
					},
					p,
				),
			B: httpNode(baseUrl, {
				method: 'POST',
				url: 'messages',
				...formBody({ conversation_id: service.sendConversation, message: '=n{{ $json.ids }}' }),
			}),
		},
		getMany: {
			items: null,
			A: () =>
				messagingNode({
					resource: 'message',
					operation: 'getAll',
					returnAll: true,
					filters: { conversationId: byId(service.manyConversation) },
				}),
			B: httpNode(baseUrl, {
				method: 'GET',
				url: 'messages',
				sendQuery: true,
				queryParameters: {
					parameters: [
						{ name: 'conversation_id', value: service.manyConversation },
						{ name: 'limit', value: '100' },
					],
				},
				options: {
					pagination: {
						pagination: {
							paginationMode: 'updateAParameterInEachRequest',
							parameters: {
								parameters: [
									{
										type: 'qs',
										name: 'starting_after',
										value: '={{ $response.body.data.at(-1).id }}',
									},
								],
							},
							paginationCompleteWhen: 'other',
							completeExpression: '={{ !$response.body.has_more }}',
						},
					},
				},
			}),
		},
	};
}

/** Every n8n variant's workflow, and its id by "<workload>:<variant key>". */
function benchWorkflows(byWorkload) {
	const workflows = [];
	const ids = {};
	for (const [name, spec] of Object.entries(byWorkload)) {
		const add = (key, target, settings) => {
			const id = `bench${name}${key}`
				.replace(/[^A-Za-z0-9]/g, '')
				.slice(0, 16)
				.padEnd(16, '0');
			ids[`${name}:${key}`] = id;
			workflows.push(workflow(id, target, spec.items, settings));
		};
		add('A', spec.A(), CONTINUE);
		// The floor at the rate-limit shapes' cap of 3 in flight (a reference run of that matrix).
		if (name === 'get') add('F3', spec.F(3));
		if (name === 'get' || name === 'mute') {
			add('A32', spec.A(32), CONTINUE);
			add('F8', spec.F(8));
			add('F32', spec.F(32));
		}
		if (name === 'send') {
			// Parallel Requests above Send's default 1: the rate-limit shapes matrix.
			add('A8', spec.A(8), CONTINUE);
			add('A32', spec.A(32), CONTINUE);
		}
		add('B', spec.B, CONTINUE);
		add('Bretry', spec.B, RETRY);
	}
	return { workflows, ids };
}

/** Which variants run on the idle service, per workload, in this order. */
const IDLE_PLAN = [
	['get', ['A', 'A32', 'F8', 'F32', 'B', 'C 8', 'C 32', 'C all']],
	['mute', ['A', 'A32', 'F8', 'F32', 'B', 'C 8', 'C 32', 'C all']],
	['send', ['A', 'B', 'C 1', 'C all']],
	['getMany', ['A', 'B', 'C 1']],
];
/** Which run under the rate limit. */
const LIMITED_PLAN = [
	['get', ['A', 'A32', 'B', 'Bretry', 'C 8']],
	['mute', ['A', 'A32', 'B', 'Bretry', 'C 8']],
	['send', ['A', 'B', 'Bretry', 'C 1']],
	['getMany', ['A', 'B', 'C 1']],
];

const LABELS = {
	A: 'A (8)',
	A8: 'A (8)',
	A32: 'A (32)',
	F3: 'F (3)',
	F8: 'F (8)',
	F32: 'F (32)',
	B: 'B',
	Bretry: 'B+retry',
	'C 1': 'C (1)',
	'C 8': 'C (8)',
	'C 32': 'C (32)',
	'C all': 'C (all)',
};

/** A variant's name in the report (A sends one at a time, and Get Many pages one at a time). */
const variantLabel = (workload, variant) =>
	workload === 'send' && variant === 'A'
		? 'A (1)'
		: workload === 'getMany' && variant === 'A'
			? 'A'
			: LABELS[variant];

const workloadTitle = (workload, sizes) =>
	({
		get: `Get message × ${sizes.get}`,
		mute: `Mute conversation × ${sizes.mute}`,
		send: `Send × ${sizes.send}`,
		getMany: `Get Many, Return All, ${sizes.many}`,
	})[workload];

/** The requests a workload makes (Get Many: pages of 100). */
const requestCount = (workload, sizes) =>
	({ get: sizes.get, mute: sizes.mute, send: sizes.send, getMany: sizes.many / 100 })[workload];

/** How many requests a variant keeps in flight, for the ones the rate-limited minimum is computed for. */
const inFlight = (workload, variant) =>
	({ A: workload === 'get' || workload === 'mute' ? 8 : 1, A32: 32 })[variant];

module.exports = {
	credentials,
	variants,
	benchWorkflows,
	IDLE_PLAN,
	LIMITED_PLAN,
	variantLabel,
	workloadTitle,
	requestCount,
	inFlight,
};
