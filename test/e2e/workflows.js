'use strict';
/** The workflows the end-to-end suite imports into a real n8n, built as n8n stores them. */

const TYPE = 'n8n-nodes-messaging.messaging';
const TRIGGER_TYPE = 'n8n-nodes-messaging.messagingTrigger';
const CREDENTIAL_ID = 'e2eMessagingCred1';
const credentials = { messagingApi: { id: CREDENTIAL_ID, name: 'Messaging (sandbox)' } };
const byId = (value) => ({ __rl: true, mode: 'id', value });

function manual() {
	return { id: 'manual', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
}

/** A straight chain: Start -> step 1 -> step 2 … */
function chain(id, name, steps) {
	const nodes = [manual()];
	const connections = {};
	steps.forEach((step, index) => {
		const node = {
			id: `n${index}`,
			name: step.name,
			type: step.type ?? TYPE,
			typeVersion: 1,
			position: [220 * (index + 1), 0],
			parameters: step.parameters,
			...(step.type ? {} : { credentials }),
			...(step.executeOnce ? { executeOnce: true } : {}),
			...(step.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
		};
		const previous = nodes[nodes.length - 1].name;
		connections[previous] = { main: [[{ node: step.name, type: 'main', index: 0 }]] };
		nodes.push(node);
	});
	return { id, name, nodes, connections, active: false, settings: { executionOrder: 'v1' }, pinData: {} };
}

function messageOperations(conversationId) {
	const msg = (name, parameters, extra = {}) => ({ name, parameters: { resource: 'message', ...parameters }, ...extra });
	const current = byId('={{ $json.id }}');
	return chain('e2eMessageOps00', 'E2E message operations', [
		msg('Send', { operation: 'send', conversationId: byId(conversationId), text: 'E2E hello & [welcome] 👋', additionalFields: { attachments: '[{"name":"a.txt"}]' } }),
		msg('Get', { operation: 'get', messageId: current }),
		msg('Update', { operation: 'update', messageId: current, updateFields: { text: 'E2E edited', reactions: { reaction: [{ name: 'like', reactors: 'ann, bob' }] } } }),
		msg('Add Reaction', { operation: 'addReaction', messageId: current, reaction: 'party & fun', reactor: 'zoë' }),
		msg('Remove Reaction', { operation: 'removeReaction', messageId: current, reaction: 'like', reactor: 'ann' }),
		msg('Delete', { operation: 'delete', messageId: current }),
		msg('Get Many', { operation: 'getAll', returnAll: false, limit: 2, filters: { conversationId: byId(conversationId) }, options: { isoTimestamps: true } }, { executeOnce: true }),
	]);
}

function conversationOperations(contactId) {
	const conv = (name, parameters, extra = {}) => ({ name, parameters: { resource: 'conversation', ...parameters }, ...extra });
	const current = byId('={{ $json.id }}');
	return chain('e2eConvOps00001', 'E2E conversation operations', [
		conv('Create', { operation: 'create', createWith: 'contact', contactId }),
		conv('Get', { operation: 'get', conversationId: current }),
		conv('Update', { operation: 'update', conversationId: current, updateFields: { isMuted: true, isPinned: true, archivedAt: '2026-01-02T03:04:05Z' } }),
		conv('Unarchive', { operation: 'unarchive', conversationId: current }),
		conv('Unpin', { operation: 'unpin', conversationId: current }),
		conv('Unmute', { operation: 'unmute', conversationId: current }),
		conv('Pin', { operation: 'pin', conversationId: current }),
		conv('Mute', { operation: 'mute', conversationId: current }),
		conv('Archive', { operation: 'archive', conversationId: current }),
		conv('Get Many', { operation: 'getAll', returnAll: true, filters: { archived: true, muted: true } }, { executeOnce: true }),
		conv('Delete', { operation: 'delete', conversationId: current }),
	]);
}

function continueOnFail() {
	return chain('e2eContinueFail', 'E2E continue on fail', [
		{ name: 'Conversations', parameters: { resource: 'conversation', operation: 'getAll', returnAll: false, limit: 3 } },
		{
			name: 'Get Each',
			parameters: { resource: 'conversation', operation: 'get', conversationId: byId("={{ $itemIndex === 1 ? 'conv_missing' : $json.id }}") },
			continueOnFail: true,
		},
	]);
}

/** Trigger -> Send "seen <id>" into a log conversation, so the sandbox records each delivery. */
function triggerToLog(inboxId, logId) {
	return {
		id: 'e2eTriggerLog01',
		name: 'E2E trigger',
		nodes: [
			{
				id: 't',
				name: 'Messaging Trigger',
				type: TRIGGER_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, conversationId: byId(inboxId), options: {} },
				credentials,
			},
			{
				id: 's',
				name: 'Log',
				type: TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters: { resource: 'message', operation: 'send', conversationId: byId(logId), text: '=seen {{ $json.id }}' },
				credentials,
			},
		],
		connections: { 'Messaging Trigger': { main: [[{ node: 'Log', type: 'main', index: 0 }]] } },
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

function credential(baseUrl, accessToken) {
	return { id: CREDENTIAL_ID, name: 'Messaging (sandbox)', type: 'messagingApi', data: { baseUrl, accessToken, timestampUnit: 'auto', ownContactId: '' } };
}

module.exports = { messageOperations, conversationOperations, continueOnFail, triggerToLog, credential, CREDENTIAL_ID };
