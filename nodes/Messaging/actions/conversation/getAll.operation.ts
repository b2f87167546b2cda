import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection, returnAllAndLimit } from '../../descriptions/common';
import { extraQueryParameters } from '../../descriptions/extraFields';
import {
	createdFilters,
	lastActiveFilters,
	neverActiveFilter,
} from '../../descriptions/listFilters';
import { getMany } from '../../helpers/getMany';
import { conversationFilter } from '../../helpers/listFilters';
import { getOptionalId } from '../../helpers/parameters';
import { simplifyFields } from '../../../shared/simplify/fields';
import type { OperationResult, RunContext } from '../../types';

export const toolDescription = `List conversations in the service’s order, to find a conversation ID. Returns up to Limit conversations (at most 100 as a tool), each {id, contact_id, group_id, pinned, muted, archived, last_active_at}, about 150 characters.`;

export const simplifyAs = 'conversation';

function onlyFilter(name: string, state: string): INodeProperties {
	return {
		displayName: state.charAt(0).toUpperCase() + state.slice(1),
		name,
		type: 'boolean',
		default: true,
		description: `Whether to return only ${state} conversations (on) or only those not ${state} (off)`,
	};
}

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			onlyFilter('archived', 'archived'),
			...createdFilters('conversations'),
			{
				displayName: 'Group ID',
				name: 'groupId',
				type: 'string',
				default: '',
				placeholder: 'grp_123',
				description: 'Only conversations of this group',
			},
			...lastActiveFilters,
			onlyFilter('muted', 'muted'),
			neverActiveFilter,
			onlyFilter('pinned', 'pinned'),
		],
	},
	extraQueryParameters,
	...simplifyFields('conversations'),
	optionsCollection({ isoTimestamps: true }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['conversation'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const groupId = getOptionalId(this, 'filters.groupId', itemIndex, 'Group ID');
	const filter = await conversationFilter(this, itemIndex);
	const query = {
		muted: filters.muted as boolean | undefined,
		archived: filters.archived as boolean | undefined,
		pinned: filters.pinned as boolean | undefined,
		group_id: groupId === '' ? undefined : groupId,
	};
	return (await getMany.call(this, itemIndex, run, 'conversations', query, filter)).records;
}
