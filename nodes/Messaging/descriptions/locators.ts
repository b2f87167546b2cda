import type { INodeProperties } from 'n8n-workflow';

/** Ids are opaque strings; any character is allowed (the transport encodes them). */
function locator(
	name: string,
	displayName: string,
	searchListMethod: string,
	placeholder: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder,
			},
		],
	};
}

export const conversationLocator = locator(
	'conversationId',
	'Conversation',
	'searchConversations',
	'conv_123',
	'The conversation, picked from the list or given by its ID',
);

export const messageLocator = locator(
	'messageId',
	'Message',
	'searchMessages',
	'msg_123',
	'The message, picked from the list or given by its ID',
);
