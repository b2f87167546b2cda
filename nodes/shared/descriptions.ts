import type { INodeProperties } from 'n8n-workflow';

/** A "From List / By ID" picker. Ids are opaque strings; any character is allowed (the transport encodes them). */
export function resourceLocator(options: {
	name: string;
	displayName: string;
	searchListMethod: string;
	placeholder: string;
	description: string;
}): INodeProperties {
	const { name, displayName, searchListMethod, placeholder, description } = options;
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

export const conversationLocator = resourceLocator({
	name: 'conversationId',
	displayName: 'Conversation',
	searchListMethod: 'searchConversations',
	placeholder: 'conv_123',
	description: 'The conversation, picked from the list or given by its ID',
});

export const isoTimestampsOption: INodeProperties = {
	displayName: 'Add ISO Timestamps',
	name: 'isoTimestamps',
	type: 'boolean',
	default: false,
	description:
		'Whether to add an ISO 8601 copy (UTC) beside every timestamp, named like created_at_iso. The integers stay as the service sent them.',
};
