import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { messagingApiRequest } from '../../../shared/transport';
import { optionsCollection } from '../../descriptions/common';
import { messageLocators } from '../../descriptions/locators';
import { getRequiredId } from '../../helpers/parameters';
import type { OperationResult, RunContext } from '../../types';

const properties: INodeProperties[] = [
	...messageLocators,
	optionsCollection({ isoTimestamps: true }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const messageId = getRequiredId(this, 'messageId', itemIndex, 'Message');
	return await messagingApiRequest.call(
		this,
		{ method: 'GET', path: ['messages', messageId] },
		run.requestOptions(itemIndex, 'record'),
	);
}
