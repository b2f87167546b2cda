import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { messagingApiRequest } from '../../../shared/transport';
import { optionsCollection } from '../../descriptions/common';
import { messageLocators } from '../../descriptions/locators';
import { getRequiredId } from '../../helpers/parameters';
import type { OperationResult, RunContext } from '../../types';
import { MESSAGE } from '../../descriptions/tool';

export const toolDescription = `DESTRUCTIVE, cannot be undone: permanently deletes one message. ${MESSAGE}. Returns {id, deleted: true}.`;

const properties: INodeProperties[] = [
	messageLocators[0],
	{ ...messageLocators[1], description: 'The message to delete. The deletion is permanent.' },
	optionsCollection({ isoTimestamps: false }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const messageId = getRequiredId(this, 'messageId', itemIndex, 'Message');
	await messagingApiRequest.call(
		this,
		{ method: 'DELETE', path: ['messages', messageId] },
		run.requestOptions(itemIndex, 'none'),
	);
	return { id: messageId, deleted: true };
}
