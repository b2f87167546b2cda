'use strict';
/**
 * The workflows of the queue-mode suite, built as n8n stores them: two started by production webhooks
 * (every operation of both resources), and the trigger's workflow that records each delivery at the
 * service. The trigger's node version and parameters live in TRIGGER_VERSIONS: switching the suite to
 * another version of the trigger is one entry (or `--trigger-version`).
 */
const crypto = require('node:crypto');
const { CREDENTIAL_ID, credential } = require('../../test/e2e/workflows');

const TYPE = 'n8n-nodes-messaging.messaging';
const TRIGGER_TYPE = 'n8n-nodes-messaging.messagingTrigger';
const SERVICE_CREDENTIAL_ID = CREDENTIAL_ID; // the clean service: webhooks' workflows and the delivery log
const FAULTY_CREDENTIAL_ID = 'queueFaultyCred1'; // the service with faults injected: the trigger's polls
const byId = (value) => ({ __rl: true, mode: 'id', value });
const TRIGGER_PAGE_SIZE = 20;

/**
 * Per trigger version: its parameters, and how often it checks (what the suite waits for).
 * Version 2 (trigger()-based, settles a delivery when its execution finished) polls every few seconds.
 */
const TRIGGER_VERSIONS = {
	1: {
		typeVersion: 1,
		checkEveryMs: 60_000,
		parameters: (inboxId) => ({
			pollTimes: { item: [{ mode: 'everyMinute' }] },
			conversationId: byId(inboxId),
			options: { pageSize: TRIGGER_PAGE_SIZE },
		}),
	},
	2: {
		typeVersion: 2,
		checkEveryMs: 5_000,
		parameters: (inboxId) => ({
			interval: 5,
			unit: 'seconds',
			conversationId: byId(inboxId),
			options: { pageSize: TRIGGER_PAGE_SIZE },
		}),
	},
};

function credentials(id = SERVICE_CREDENTIAL_ID) {
	return {
		messagingApi: {
			id,
			name: id === SERVICE_CREDENTIAL_ID ? 'Messaging (sandbox)' : 'Messaging (faulty sandbox)',
		},
	};
}

function webhookNode(path) {
	return {
		id: 'w',
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'lastNode',
			responseData: 'firstEntryJson',
			options: {},
		},
	};
}

/** Webhook -> step 1 -> step 2 … (Messaging nodes unless a step names another type). */
function webhookChain(id, name, path, steps) {
	const nodes = [webhookNode(path)];
	const connections = {};
	steps.forEach((step, index) => {
		nodes.push({
			id: `n${index}`,
			name: step.name,
			type: TYPE,
			typeVersion: 1,
			position: [220 * (index + 1), 0],
			parameters: step.parameters,
			credentials: credentials(),
			...(step.executeOnce ? { executeOnce: true } : {}),
		});
		connections[nodes[nodes.length - 2].name] = {
			main: [[{ node: step.name, type: 'main', index: 0 }]],
		};
	});
	return {
		id,
		name,
		nodes,
		connections,
		active: true,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

const body = (field) => `={{ $('Webhook').first().json.body.${field} }}`;

/**
 * Body: { conversation, tag, deleteId }. Leaves at the service: the sent message edited, with its
 * reactions; `deleteId` gone; a "count <n>" message from Get Many with Return All (several pages).
 */
function messageOperations() {
	const msg = (name, parameters, extra = {}) => ({
		name,
		parameters: { resource: 'message', ...parameters },
		...extra,
	});
	const current = byId('={{ $json.id }}');
	return webhookChain('queueMessageOps', 'Queue: message operations', 'queue-messages', [
		msg('Send', {
			operation: 'send',
			conversationId: byId(body('conversation')),
			text: `=q ${body('tag').slice(1)}`,
			additionalFields: { attachments: '[{"name":"a.txt"}]' },
		}),
		msg('Get', { operation: 'get', messageId: current }),
		msg('Update', {
			operation: 'update',
			messageId: current,
			updateFields: {
				text: `=q ${body('tag').slice(1)} edited`,
				reactions: { reaction: [{ name: 'like', reactors: 'ann, bob' }] },
			},
		}),
		msg('Add Reaction', {
			operation: 'addReaction',
			messageId: current,
			reaction: 'party & fun',
			reactor: 'zoë',
		}),
		msg('Remove Reaction', {
			operation: 'removeReaction',
			messageId: current,
			reaction: 'like',
			reactor: 'ann',
		}),
		msg(
			'Delete',
			{ operation: 'delete', messageId: byId(body('deleteId')) },
			{ executeOnce: true },
		),
		msg(
			'Get Many',
			{
				operation: 'getAll',
				returnAll: true,
				filters: { conversationId: byId(body('conversation')) },
			},
			{ executeOnce: true },
		),
		msg(
			'Report',
			{
				operation: 'send',
				conversationId: byId(body('conversation')),
				text: "=count {{ $('Get Many').all().length }}",
			},
			{ executeOnce: true },
		),
	]);
}

/**
 * Body: { contact, tag, deleteId, report }. Leaves at the service: a conversation with the contact,
 * archived, pinned and muted; `deleteId` gone; in `report`, "conv <tag> <id> listed true" when
 * Get Many with filters (archived, muted) listed the new conversation.
 */
function conversationOperations() {
	const conv = (name, parameters, extra = {}) => ({
		name,
		parameters: { resource: 'conversation', ...parameters },
		...extra,
	});
	const current = byId('={{ $json.id }}');
	return webhookChain('queueConvOps000', 'Queue: conversation operations', 'queue-conversations', [
		conv('Create', {
			operation: 'create',
			createWith: 'contact',
			contactId: body('contact'),
		}),
		conv('Get', { operation: 'get', conversationId: current }),
		conv('Update', {
			operation: 'update',
			conversationId: current,
			updateFields: {
				isMuted: true,
				isPinned: true,
				archivedAt: '2026-01-02T03:04:05Z',
			},
		}),
		conv('Unarchive', { operation: 'unarchive', conversationId: current }),
		conv('Unpin', { operation: 'unpin', conversationId: current }),
		conv('Unmute', { operation: 'unmute', conversationId: current }),
		conv('Pin', { operation: 'pin', conversationId: current }),
		conv('Mute', { operation: 'mute', conversationId: current }),
		conv('Archive', { operation: 'archive', conversationId: current }),
		conv(
			'Get Many',
			{
				operation: 'getAll',
				returnAll: true,
				filters: { archived: true, muted: true },
			},
			{ executeOnce: true },
		),
		conv(
			'Delete',
			{ operation: 'delete', conversationId: byId(body('deleteId')) },
			{ executeOnce: true },
		),
		{
			name: 'Report',
			executeOnce: true,
			parameters: {
				resource: 'message',
				operation: 'send',
				conversationId: byId(body('report')),
				text:
					`=conv ${body('tag').slice(1)} {{ $('Create').first().json.id }} listed ` +
					"{{ $('Get Many').all().some((c) => c.json.id === $('Create').first().json.id) }}",
			},
		},
	]);
}

/**
 * Trigger -> Log: one "seen" message per delivered item into the sink conversation, naming the
 * message, the execution, the item's position, whether the trigger marked it a redelivery and why.
 */
function triggerToSink(version, inboxId, sinkId) {
	const spec = TRIGGER_VERSIONS[version];
	return {
		id: 'queueTriggerLog',
		name: 'Queue: trigger to sink',
		nodes: [
			{
				id: 't',
				name: 'Messaging Trigger',
				type: TRIGGER_TYPE,
				typeVersion: spec.typeVersion,
				position: [0, 0],
				parameters: spec.parameters(inboxId),
				credentials: credentials(FAULTY_CREDENTIAL_ID),
			},
			{
				id: 's',
				name: 'Log',
				type: TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'message',
					operation: 'send',
					conversationId: byId(sinkId),
					text: "=seen {{ $json.id }} x{{ $execution.id }} i{{ $itemIndex }} r{{ $json.redelivery === true }} a{{ $json.attempt ?? 1 }} w{{ $json.redeliveryReason ?? '-' }}",
					// The log's texts differ per execution: nothing to look for before sending.
					skipIfAlreadySent: 'never',
				},
				credentials: credentials(),
			},
		],
		connections: {
			'Messaging Trigger': {
				main: [[{ node: 'Log', type: 'main', index: 0 }]],
			},
		},
		active: true,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** Parses a sink message written by triggerToSink's Log node. */
function parseSeen(text) {
	const m = /^seen (\S+) x(\S+) i(\d+) r(true|false) a(\S+)(?: w(\S+))?$/.exec(text);
	return m
		? {
				id: m[1],
				execution: m[2],
				index: Number(m[3]),
				redelivery: m[4] === 'true',
				attempt: m[5],
				reason: m[6] === undefined || m[6] === '-' ? undefined : m[6],
			}
		: undefined;
}

function credentialsFile(serviceUrl, faultyUrl, token) {
	return [
		credential(`${serviceUrl}/`, token),
		(({ data, ...rest }) => ({
			...rest,
			id: FAULTY_CREDENTIAL_ID,
			name: 'Messaging (faulty sandbox)',
			// Known up front, so a poll makes no extra request to learn it.
			data: { ...data, ownContactId: 'ct_me' },
		}))(credential(`${faultyUrl}/`, token)),
	];
}

module.exports = {
	TRIGGER_VERSIONS,
	TRIGGER_PAGE_SIZE,
	messageOperations,
	conversationOperations,
	triggerToSink,
	parseSeen,
	credentialsFile,
};
