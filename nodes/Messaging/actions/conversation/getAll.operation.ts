import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection, returnAllAndLimit } from '../../descriptions/common';
import { extraQueryParameters } from '../../descriptions/extraFields';
import { getMany } from '../../helpers/getMany';
import { getOptionalId } from '../../helpers/parameters';
import { simplifyFields } from '../../descriptions/simplify';
import type { OperationResult, RunContext } from '../../types';

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
			{
				displayName: 'Group ID',
				name: 'groupId',
				type: 'string',
				default: '',
				placeholder: 'grp_123',
				description: 'Only conversations of this group',
			},
			onlyFilter('muted', 'muted'),
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
	return await getMany.call(this, itemIndex, run, 'conversations', {
		muted: filters.muted as boolean | undefined,
		archived: filters.archived as boolean | undefined,
		pinned: filters.pinned as boolean | undefined,
		group_id: groupId === '' ? undefined : groupId,
	});
}
