import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { messagingApiRequest } from '../../../shared/transport';
import { optionsCollection } from '../../descriptions/common';
import { conversationLocator } from '../../descriptions/locators';
import { getRequiredId } from '../../helpers/parameters';
import { simplifyFields } from '../../../shared/simplify/fields';
import type { OperationResult, RunContext } from '../../types';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Get one conversation. ${CONVERSATION}. Returns {id, contact_id, group_id, pinned, muted, archived, last_active_at}.`;

export const simplifyAs = 'conversation';

const properties: INodeProperties[] = [
	conversationLocator,
	...simplifyFields('conversation'),
	optionsCollection({ isoTimestamps: true }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['conversation'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const conversationId = getRequiredId(this, 'conversationId', itemIndex, 'Conversation');
	return await messagingApiRequest.call(
		this,
		{ method: 'GET', path: ['conversations', conversationId] },
		run.requestOptions(itemIndex, 'record'),
	);
}
