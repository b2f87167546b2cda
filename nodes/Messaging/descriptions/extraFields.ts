/**
 * Extra Body Fields and Extra Query Parameters: fields a service takes beyond the spec (`reply_to`,
 * `thread_id`, `mentions`, `format`), sent in the same form encoding as the node's own.
 */
import type { INodeProperties } from 'n8n-workflow';

const VALUE_HELP =
	'A JSON array or object is sent in the same bracket form as the node’s own fields (["ann","bob"] as mentions[]=ann&mentions[]=bob); any other value as text';

function rowsOf(
	displayName: string,
	name: string,
	row: 'Field' | 'Parameter',
	example: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: `Add ${row}`,
		default: {},
		description,
		options: [
			{
				displayName: row,
				name: 'field',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: example },
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
}

export const extraBodyFields = rowsOf(
	'Extra Body Fields',
	'extraBodyFields',
	'Field',
	'reply_to',
	'Fields your service takes beyond the spec, such as reply_to, thread_id, mentions or format, sent with the request. A field the node sets itself is refused.',
);

export const extraQueryParameters = rowsOf(
	'Extra Query Parameters',
	'extraQueryParameters',
	'Parameter',
	'thread_id',
	'Query parameters your service takes beyond the spec (a thread_id filter, say), sent with every page’s request. A parameter the node sets itself (limit, starting_after, the filters) is refused.',
);
