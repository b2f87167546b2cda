/** The Simplify toggles: the Messaging node's (one per output kind, by version) and the trigger's option. */
import type { INodeProperties } from 'n8n-workflow';

type What = 'message' | 'messages' | 'conversation' | 'conversations' | 'reply';

const RETURNS: Record<What, string> = {
	message: 'the message',
	messages: 'each message',
	conversation: 'the conversation',
	conversations: 'each conversation',
	reply: 'the sent message and the reply',
};

function simplifyDescription(what: What): string {
	const shape =
		what === 'conversation' || what === 'conversations'
			? 'with whom, pinned, muted, archived, last activity'
			: 'sender, from_me, text, times, reactions counted, attachment names';
	return `Whether to return ${RETURNS[what]} as a compact record (${shape}; times in ISO 8601, no phone numbers or avatar URLs) instead of the service's raw record`;
}

/**
 * The Simplify toggle. Off in version 1 (its output stays the service's record); on by default from
 * version 2, where new nodes start, as n8n's own nodes have it on their reading operations.
 */
export function simplifyFields(what: What): INodeProperties[] {
	return [
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description: simplifyDescription(what),
			displayOptions: { show: { '@version': [1] } },
		},
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description: simplifyDescription(what),
			displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
		},
	];
}

/** The trigger's option (off by default in both versions: existing workflows keep the raw records). */
export const triggerSimplifyOption: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description:
		"Whether to emit each message as a compact record (sender, from_me, text, times in ISO 8601, reactions counted, attachment names; no phone numbers or avatar URLs) instead of the service's raw record",
};
