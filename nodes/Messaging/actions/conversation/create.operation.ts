import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { messagingApiRequest } from '../../../shared/transport';
import { optionsCollection } from '../../descriptions/common';
import { extraBodyFields } from '../../descriptions/extraFields';
import { readExtraFields } from '../../helpers/extraFields';
import { getOptionalId } from '../../helpers/parameters';
import { inputError } from '../../../shared/inputError';
import type { OperationResult, RunContext } from '../../types';

export const toolDescription = `Start a conversation with a contact (Contact_ID, like ct_123) or a group (Group_ID). Returns the new conversation with its id.`;

const properties: INodeProperties[] = [
	{
		displayName: 'Create With',
		name: 'createWith',
		type: 'options',
		default: 'contact',
		options: [
			{ name: 'Contact', value: 'contact', description: 'A conversation with one other contact' },
			{ name: 'Group', value: 'group', description: 'A conversation of a group of contacts' },
		],
		description: 'Whether the conversation is with one contact or with a group',
	},
	{
		displayName: 'Contact ID',
		name: 'contactId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'ct_123',
		description: 'The other contact of the conversation',
		displayOptions: { show: { createWith: ['contact'] } },
	},
	{
		displayName: 'Group ID',
		name: 'groupId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'grp_123',
		description: 'The group the conversation belongs to',
		displayOptions: { show: { createWith: ['group'] } },
	},
	extraBodyFields,
	optionsCollection({ isoTimestamps: true }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['conversation'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const createWith = this.getNodeParameter('createWith', itemIndex, 'contact') as string;
	const [field, label] =
		createWith === 'group' ? ['groupId', 'Group ID'] : ['contactId', 'Contact ID'];
	const id = getOptionalId(this, field, itemIndex, label);
	if (id === '')
		throw inputError(
			this,
			itemIndex,
			label,
			'is empty (a conversation needs a contact or a group)',
		);
	const extra = readExtraFields(this, itemIndex, 'extraBodyFields', ['contact_id', 'group_id']);
	return await messagingApiRequest.call(
		this,
		{
			method: 'POST',
			path: ['conversations'],
			body: { ...(createWith === 'group' ? { group_id: id } : { contact_id: id }), ...extra },
		},
		run.requestOptions(itemIndex, 'record'),
	);
}
