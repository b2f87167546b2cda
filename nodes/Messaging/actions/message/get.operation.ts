import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { messagingApiRequest } from '../../../shared/transport';
import { attachmentDownloadOptions } from '../../../shared/attachments/descriptions';
import { optionsCollection } from '../../descriptions/common';
import { messageLocators } from '../../descriptions/locators';
import { getRequiredId } from '../../helpers/parameters';
import { withDownloadedAttachments } from '../../helpers/attachments/download';
import type { OperationResult, RunContext } from '../../types';

const properties: INodeProperties[] = [
	...messageLocators,
	optionsCollection({ isoTimestamps: true, extra: attachmentDownloadOptions }),
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
	const record = await messagingApiRequest.call(
		this,
		{ method: 'GET', path: ['messages', messageId] },
		run.requestOptions(itemIndex, 'record'),
	);
	return await withDownloadedAttachments(this, itemIndex, run, record);
}
