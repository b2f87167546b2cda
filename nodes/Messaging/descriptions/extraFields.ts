/**
 * Extra Body Fields and Extra Query Parameters: fields a service takes beyond the spec (`reply_to`,
 * `thread_id`, `mentions`, `format`), sent in the same form encoding as the node's own.
 */
import type { INodeProperties } from 'n8n-workflow';

const VALUE_HELP =
	'A JSON array or object is sent in the same bracket form as the node’s own fields (["ann","bob"] as mentions[]=ann&mentions[]=bob); any other value as text';

export const extraBodyFields: INodeProperties = {
	displayName: 'Extra Body Fields',
	name: 'extraBodyFields',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Field',
	default: {},
	description:
		'Fields your service takes beyond the spec, such as reply_to, thread_id, mentions or format, sent with the request. A field the node sets itself is refused.',
	options: [
		{
			displayName: 'Field',
			name: 'field',
			values: [
				{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'reply_to' },
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
					description: VALUE_HELP,
				},
			],
		},
	],
};

export const extraQueryParameters: INodeProperties = {
	displayName: 'Extra Query Parameters',
	name: 'extraQueryParameters',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Parameter',
	default: {},
	description:
		'Query parameters your service takes beyond the spec (a thread_id filter, say), sent with every page’s request. A parameter the node sets itself (limit, starting_after, the filters) is refused.',
	options: [
		{
			displayName: 'Parameter',
			name: 'field',
			values: [
				{
					displayName: 'Name',
					name: 'name',
					type: 'string',
					default: '',
					placeholder: 'thread_id',
				},
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
					description: VALUE_HELP,
				},
			],
		},
	],
};
