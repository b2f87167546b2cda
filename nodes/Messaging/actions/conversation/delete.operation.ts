import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { messagingApiRequest } from '../../../shared/transport';
import { optionsCollection } from '../../descriptions/common';
import { conversationLocator } from '../../descriptions/locators';
import { getRequiredId } from '../../helpers/parameters';
import type { OperationResult, RunContext } from '../../types';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `DESTRUCTIVE, cannot be undone: permanently deletes a conversation and ALL its messages. ${CONVERSATION}. To keep it restorable, archive it instead. Returns {id, deleted: true}.`;

const properties: INodeProperties[] = [
	{
		...conversationLocator,
		description:
			'The conversation to delete, with all its messages. The deletion is permanent; Archive keeps it restorable.',
	},
	optionsCollection({ isoTimestamps: false }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['conversation'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const conversationId = getRequiredId(this, 'conversationId', itemIndex, 'Conversation');
	await messagingApiRequest.call(
		this,
		{ method: 'DELETE', path: ['conversations', conversationId] },
		run.requestOptions(itemIndex, 'none'),
	);
	return { id: conversationId, deleted: true };
}
