import type { INodeProperties } from 'n8n-workflow';

/**
 * The Simplify toggle. Off in version 1 (its output stays the service's record); on by default from
 * version 2, where new nodes start, as n8n's own nodes have it on their reading operations.
 */
export function simplifyFields(
	what: 'message' | 'messages' | 'conversation' | 'conversations' | 'reply',
): INodeProperties[] {
	const returns: Record<typeof what, string> = {
		message: 'the message',
		messages: 'each message',
		conversation: 'the conversation',
		conversations: 'each conversation',
		reply: 'the sent message and the reply',
	};
	const shape =
		what.startsWith('message') || what === 'reply'
			? 'id, conversation_id, from, from_me, text, sent_at, edited_at, read_at, reactions, attachments'
			: 'id, contact_id, group_id, pinned, muted, archived, last_active_at';
	const field = (
		defaultValue: boolean,
		versions: INodeProperties['displayOptions'],
	): INodeProperties => ({
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: defaultValue,
		description: `Whether to return ${returns[what]} as a compact record (${shape}; times in ISO 8601, no phone numbers or avatar URLs) instead of the service's raw record`,
		displayOptions: versions,
	});
	return [
		field(false, { show: { '@version': [1] } }),
		field(true, { show: { '@version': [{ _cnd: { gte: 2 } }] } }),
	];
}
