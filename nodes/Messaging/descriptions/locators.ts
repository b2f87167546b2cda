import type { INodeProperties } from 'n8n-workflow';

import { conversationLocator, resourceLocator } from '../../shared/descriptions';

export { conversationLocator };

/**
 * The message, with an optional conversation before it that only narrows the picker's list: message
 * ids are unique across conversations, so the request needs the message alone.
 */
export const messageLocators: INodeProperties[] = [
	{
		...conversationLocator,
		required: false,
		description:
			'Optional: lists only this conversation’s messages in the Message picker below. The request needs the message alone.',
	},
	{
		...resourceLocator({
			name: 'messageId',
			displayName: 'Message',
			searchListMethod: 'searchMessages',
			placeholder: 'msg_123',
			description: 'The message, picked from the list or given by its ID',
		}),
		typeOptions: { loadOptionsDependsOn: ['conversationId.value'] },
	},
];
