import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { attachmentDownloadOptions } from '../../../shared/attachments/descriptions';
import { optionsCollection, returnAllAndLimit } from '../../descriptions/common';
import { conversationLocator } from '../../descriptions/locators';
import { getMany } from '../../helpers/getMany';
import { getOptionalId } from '../../helpers/parameters';
import { withDownloadedAttachments } from '../../helpers/attachments/download';
import type { OperationResult, RunContext } from '../../types';

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				...conversationLocator,
				required: false,
				description: 'Only messages of this conversation',
			},
		],
	},
	optionsCollection({ isoTimestamps: true, extra: attachmentDownloadOptions }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const conversationId = getOptionalId(this, 'filters.conversationId', itemIndex, 'Conversation');
	const records = await getMany.call(this, itemIndex, run, 'messages', {
		conversation_id: conversationId === '' ? undefined : conversationId,
	});
	return await withDownloadedAttachments(this, itemIndex, run, records);
}
