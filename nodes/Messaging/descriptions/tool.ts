/**
 * The node as an AI agent's tool sees it. n8n describes a tool as "<action> in Messaging" and offers the
 * parameters the editor's "let the model define this" writes, keyed by their display names with no
 * description; so the tool variant carries a Description that says, per operation, what it does, what
 * each parameter is, what it returns and what it costs.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

const CONVERSATION = 'Conversation: a conversation ID like conv_123 (never a person’s name)';
const MESSAGE = 'Message: a message ID like msg_123';
const MESSAGE_FIELDS =
	'id, conversation_id, from, from_me, text, sent_at, edited_at, read_at, reactions, attachments';

export const TOOL_DESCRIPTIONS: Record<string, Record<string, string>> = {
	message: {
		send: `Send a text message to a conversation. ${CONVERSATION}; Text: the message. Returns the sent message (${MESSAGE_FIELDS}), about 300 characters.`,
		getAll: `List messages in the service’s order, optionally only of one conversation (${CONVERSATION}). Returns up to Limit messages (at most 100 as a tool), each a record of ${MESSAGE_FIELDS}, about 250 characters. To read a conversation before answering, Get Context is cheaper.`,
		get: `Get one message. ${MESSAGE}. Returns ${MESSAGE_FIELDS}, about 300 characters.`,
		update: `Edit a message. ${MESSAGE}; Text: the new content. Returns the updated message.`,
		delete: `DESTRUCTIVE, cannot be undone: permanently deletes one message. ${MESSAGE}. Returns {id, deleted: true}.`,
		addReaction: `Add a reaction to a message, keeping the others. ${MESSAGE}; Reaction: a name like like or 👍; Reactor: who reacts (username or contact ID). Returns the message.`,
		removeReaction: `Remove one person’s reaction from a message. ${MESSAGE}; Reaction: its name; Reactor: whose. Returns the message.`,
		sendAndWaitForReply: `Send a question to a conversation and wait for the next message from someone else there. ${CONVERSATION}; Message: the question. Returns {sent, reply, timedOut}; reply is null when nobody answered in time.`,
		sendAndWait: `Ask a person for approval in a conversation and wait until they answer on the page its link opens. ${CONVERSATION}; Message: what to approve. Returns the person’s decision.`,
	},
	conversation: {
		getContext: `Read a conversation as one transcript before answering in it or to summarise it: its latest messages, oldest first, one line each ("[time] speaker: text", the account as "me", reactions summarised). ${CONVERSATION}; Max_Messages: how many (default 50, at most 500). Returns {transcript, messages, omitted, first_at, last_at}, by default at most 10,000 characters.`,
		getAll: `List conversations in the service’s order, to find a conversation ID. Returns up to Limit conversations (at most 100 as a tool), each {id, contact_id, group_id, pinned, muted, archived, last_active_at}, about 150 characters.`,
		get: `Get one conversation. ${CONVERSATION}. Returns {id, contact_id, group_id, pinned, muted, archived, last_active_at}.`,
		create: `Start a conversation with a contact (Contact_ID, like ct_123) or a group (Group_ID). Returns the new conversation with its id.`,
		update: `Change a conversation’s pinned message, pinned or muted state, or archive date. ${CONVERSATION}. Returns the conversation.`,
		delete: `DESTRUCTIVE, cannot be undone: permanently deletes a conversation and ALL its messages. ${CONVERSATION}. To keep it restorable, archive it instead. Returns {id, deleted: true}.`,
		archive: `Archive a conversation (restorable with unarchive). ${CONVERSATION}. Returns the conversation.`,
		unarchive: `Restore an archived conversation. ${CONVERSATION}. Returns the conversation.`,
		pin: `Pin a conversation. ${CONVERSATION}. Returns the conversation.`,
		unpin: `Unpin a conversation. ${CONVERSATION}. Returns the conversation.`,
		mute: `Mute a conversation. ${CONVERSATION}. Returns the conversation.`,
		unmute: `Unmute a conversation. ${CONVERSATION}. Returns the conversation.`,
	},
	service: {
		checkCompatibility: `Diagnose the Messaging service when its answers look wrong: probes it with GET requests only (unless the workflow turned on Write Probe) and returns one report of what the node detects (timestamp unit, list order, cursor, page size, ids, reactions, attachment URLs, rate-limit headers, error shape), each {result, status, evidence, nodeWill}, with the findings to look at in attention. Takes no arguments. About 4,500 characters.`,
	},
};

/** Limit's largest value when the node runs as a tool: a larger one is lowered to it, not refused. */
export const TOOL_MAX_LIMIT = 100;

/**
 * The Description of the tool variant only ('@tool'): its default is the chosen operation's tool
 * description, and n8n then adds no "Set Automatically" choice of its own.
 */
export const toolDescriptionProperty: INodeProperties = {
	displayName: 'Description',
	name: 'toolDescription',
	type: 'string',
	typeOptions: { rows: 3 },
	// Spaced: a `}}` inside the expression would end it early.
	default: `={{ ${JSON.stringify(TOOL_DESCRIPTIONS, null, 1)}[$parameter.resource]?.[$parameter.operation] ?? "Send and read messages in Messaging" }}`,
	required: true,
	description:
		'What the AI model is told about this tool. By default it says what the chosen operation does, takes and returns.',
	displayOptions: { show: { '@tool': [true] } },
};

/** Whether the node runs as an AI agent's tool (n8n's tool variants are named "<node>Tool"). */
export function isTool(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** What a model can do about a service's refusal, by status: the error message is all n8n passes it. */
const NEXT_STEP: Record<string, string> = {
	'400': 'Check the arguments against the tool description and call again with corrected values.',
	'401': 'The Messaging credential was refused; retrying will not help, tell the user.',
	'403': 'This account may not do that; retrying will not help, tell the user.',
	'404': 'Check the ID: use one returned by another call (Get Many, Get Context), never a name.',
	'409': 'The record changed meanwhile; read it again before retrying.',
	'422': 'Check the arguments against the tool description and call again with corrected values.',
	'429': 'The service is rate limiting; wait before calling again.',
};

/** Pure: an error message with what to do next, for a model (once; unknown statuses unchanged). */
export function withNextStep(message: string, httpCode: unknown): string {
	const next = typeof httpCode === 'string' ? NEXT_STEP[httpCode] : undefined;
	if (next === undefined || message.includes(next)) return message;
	return `${message.replace(/[.\s]*$/, '')}. ${next}`;
}
