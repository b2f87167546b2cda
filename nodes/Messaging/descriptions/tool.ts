/**
 * The node as an AI agent's tool sees it. n8n describes a tool as "<action> in Messaging" and offers the
 * parameters the editor's "let the model define this" writes, keyed by their display names with no
 * description; so the tool variant carries a Description that says, per operation, what it does, what
 * each parameter is, what it returns and what it costs. Each operation's file holds its own text
 * (`toolDescription`); actions/resources.ts gathers them.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** The parameters' words each operation's tool text uses. */
export const CONVERSATION = 'Conversation: a conversation ID like conv_123 (never a person’s name)';
export const MESSAGE = 'Message: a message ID like msg_123';
export const MESSAGE_FIELDS =
	'id, conversation_id, from, from_me, text, sent_at, edited_at, read_at, reactions, attachments';

/** Limit's largest value when the node runs as a tool: a larger one is lowered to it, not refused. */
export const TOOL_MAX_LIMIT = 100;

/** Each operation's tool text (its `toolDescription`), by value: what a resource's index hands the node. */
export function toolTexts(
	operations: Record<string, { toolDescription: string }>,
): Record<string, string> {
	return Object.fromEntries(
		Object.entries(operations).map(([value, operation]) => [value, operation.toolDescription]),
	);
}

/**
 * The Description of the tool variant only ('@tool'): its default is the chosen operation's tool
 * description, and n8n then adds no "Set Automatically" choice of its own.
 */
export function toolDescriptionProperty(
	texts: Record<string, Record<string, string>>,
): INodeProperties {
	return {
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 3 },
		// Spaced: a `}}` inside the expression would end it early.
		default: `={{ ${JSON.stringify(texts, null, 1)}[$parameter.resource]?.[$parameter.operation] ?? "Send and read messages in Messaging" }}`,
		required: true,
		description:
			'What the AI model is told about this tool. By default it says what the chosen operation does, takes and returns.',
		displayOptions: { show: { '@tool': [true] } },
	};
}

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
