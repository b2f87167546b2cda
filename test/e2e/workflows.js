'use strict';
/** The workflows the end-to-end suite (test/e2e/e2e.js) imports into a real n8n, and its credential. */
const { byId, chainWorkflow, manualTrigger } = require('../../scripts/lib/workflows');

const CREDENTIAL_ID = 'e2eMessagingCred1';
const credentials = { messagingApi: { id: CREDENTIAL_ID, name: 'Messaging (sandbox)' } };

/** A Messaging node step; `extra` takes node settings such as `executeOnce` or `onError`. */
const messaging = (name, parameters, extra = {}) => ({
	name,
	type: 'n8n-nodes-messaging.messaging',
	parameters,
	credentials,
	...extra,
});
const EXECUTE_ONCE = { executeOnce: true };
const CONTINUE_ON_FAIL = { onError: 'continueRegularOutput' };

function messageOperations(conversationId) {
	const msg = (name, parameters, extra) =>
		messaging(name, { resource: 'message', ...parameters }, extra);
	const current = byId('={{ $json.id }}');
	return chainWorkflow({
		id: 'e2eMessageOps00',
		name: 'E2E message operations',
		nodes: [
			manualTrigger(),
			msg('Send', {
				operation: 'send',
				conversationId: byId(conversationId),
				text: 'E2E hello & [welcome] 👋',
				additionalFields: { attachments: '[{"name":"a.txt"}]' },
			}),
			msg('Get', { operation: 'get', messageId: current }),
			msg('Update', {
				operation: 'update',
				messageId: current,
				updateFields: {
					text: 'E2E edited',
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
			msg('Delete', { operation: 'delete', messageId: current }),
			msg(
				'Get Many',
				{
					operation: 'getAll',
					returnAll: false,
					limit: 2,
					filters: { conversationId: byId(conversationId) },
					options: { isoTimestamps: true },
				},
				EXECUTE_ONCE,
			),
		],
	});
}

/** Send (version 2) with text for chat and fields beyond the spec: Markdown as plain text, in parts of 40. */
function chatTextSend(conversationId) {
	return chainWorkflow({
		id: 'e2eChatTextSend',
		name: 'E2E text for chat',
		nodes: [
			manualTrigger(),
			{
				...messaging('Send in Parts', {
					resource: 'message',
					operation: 'send',
					conversationId: byId(conversationId),
					text: '## Your order\n\nIt **shipped** today. Track it [here](https://t.example/1).\n\n- box 1\n- box 2',
					extraBodyFields: {
						field: [
							{ name: 'reply_to', value: 'msg_42' },
							{ name: 'mentions', value: '["ann","bob"]' },
						],
					},
					options: { textFormat: 'plainFromMarkdown', splitAt: 40 },
				}),
				typeVersion: 2,
			},
		],
	});
}

function conversationOperations(contactId) {
	const conv = (name, parameters, extra) =>
		messaging(name, { resource: 'conversation', ...parameters }, extra);
	const current = byId('={{ $json.id }}');
	return chainWorkflow({
		id: 'e2eConvOps00001',
		name: 'E2E conversation operations',
		nodes: [
			manualTrigger(),
			conv('Create', { operation: 'create', createWith: 'contact', contactId }),
			conv('Get', { operation: 'get', conversationId: current }),
			conv('Update', {
				operation: 'update',
				conversationId: current,
				updateFields: { isMuted: true, isPinned: true, archivedAt: '2026-01-02T03:04:05Z' },
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
					filters: {
						archived: true,
						muted: true,
						createdAfter: '={{ $now.minus({ hours: 1 }) }}',
						neverActive: true,
					},
				},
				EXECUTE_ONCE,
			),
			conv('Delete', { operation: 'delete', conversationId: current }),
		],
	});
}

function continueOnFail() {
	return chainWorkflow({
		id: 'e2eContinueFail',
		name: 'E2E continue on fail',
		nodes: [
			manualTrigger(),
			messaging('Conversations', {
				resource: 'conversation',
				operation: 'getAll',
				returnAll: false,
				limit: 3,
			}),
			messaging(
				'Get Each',
				{
					resource: 'conversation',
					operation: 'get',
					conversationId: byId("={{ $itemIndex === 1 ? 'conv_missing' : $json.id }}"),
				},
				CONTINUE_ON_FAIL,
			),
		],
	});
}

/** Check Compatibility read-only, then with the write probe (a conversation with `contactId`, deleted again). */
function compatibilityCheck(contactId) {
	const service = (name, parameters) =>
		messaging(name, { resource: 'service', operation: 'checkCompatibility', ...parameters });
	return chainWorkflow({
		id: 'e2eCompatCheck1',
		name: 'E2E check compatibility',
		nodes: [
			manualTrigger(),
			service('Check', {}),
			service('Check With Write', { writeProbe: true, contactId }),
		],
	});
}

/** Trigger -> Send "seen <id>" into a log conversation, so the sandbox records each delivery. */
function triggerToLog(inboxId, logId) {
	return chainWorkflow({
		id: 'e2eTriggerLog01',
		name: 'E2E trigger',
		nodes: [
			{
				name: 'Messaging Trigger',
				type: 'n8n-nodes-messaging.messagingTrigger',
				parameters: {
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					conversationId: byId(inboxId),
					options: {},
				},
				credentials,
			},
			messaging('Log', {
				resource: 'message',
				operation: 'send',
				conversationId: byId(logId),
				text: '=seen {{ $json.id }}',
			}),
		],
	});
}

/**
 * Files: read each file of `dir` matching in-* from disk, send it from binary data, get the message back
 * with Download Attachments, write attachment_0 to `dir` as out-<its file name>.
 */
function filesRoundTrip(conversationId, dir) {
	return chainWorkflow({
		id: 'e2eFilesRound01',
		name: 'E2E files round trip',
		nodes: [
			manualTrigger(),
			{
				name: 'Read Files',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1.1,
				parameters: { operation: 'read', fileSelector: `${dir}/in-*`, options: {} },
			},
			messaging('Send', {
				resource: 'message',
				operation: 'send',
				conversationId: byId(conversationId),
				text: '={{ "file " + $binary.data.fileName }}',
				additionalFields: { binaryAttachments: 'data' },
			}),
			messaging('Get', {
				resource: 'message',
				operation: 'get',
				messageId: byId('={{ $json.id }}'),
				options: { downloadAttachments: true },
			}),
			{
				name: 'Write Files',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1.1,
				parameters: {
					operation: 'write',
					fileName: `={{ "${dir}/out-" + $binary.attachment_0.fileName }}`,
					dataPropertyName: 'attachment_0',
					options: {},
				},
			},
		],
	});
}

function credential(baseUrl, accessToken) {
	return {
		id: CREDENTIAL_ID,
		name: 'Messaging (sandbox)',
		type: 'messagingApi',
		data: { baseUrl, accessToken, timestampUnit: 'auto', ownContactId: '' },
	};
}

module.exports = {
	chatTextSend,
	messageOperations,
	conversationOperations,
	continueOnFail,
	compatibilityCheck,
	triggerToLog,
	filesRoundTrip,
	credential,
	CREDENTIAL_ID,
};
