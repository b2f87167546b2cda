import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { attachmentDownloadOptions } from '../../../shared/attachments/descriptions';
import { optionsCollection, returnAllAndLimit } from '../../descriptions/common';
import { conversationLocator } from '../../descriptions/locators';
import { extraQueryParameters } from '../../descriptions/extraFields';
import { createdFilters, messageFilters } from '../../descriptions/listFilters';
import { getMany } from '../../helpers/getMany';
import { messageFilter } from '../../helpers/listFilters';
import { getOptionalId } from '../../helpers/parameters';
import { hasOwnContact, readConversation } from '../../helpers/conversations';
import { wantsSimplify } from '../../../shared/simplify/actionOutput';
import { simplifyFields } from '../../../shared/simplify/fields';
import { withDownloadedAttachments } from '../../../shared/attachments/actionDownloads';
import type { OperationResult, RunContext } from '../../types';
import { CONVERSATION, MESSAGE_FIELDS } from '../../descriptions/tool';

export const toolDescription = `List messages in the service’s order, optionally only of one conversation (${CONVERSATION}). Returns up to Limit messages (at most 100 as a tool), each a record of ${MESSAGE_FIELDS}, about 250 characters. To read a conversation before answering, Get Context is cheaper.`;

export const simplifyAs = 'message';

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
			...createdFilters('messages'),
			...messageFilters,
		],
	},
	extraQueryParameters,
	...simplifyFields('messages'),
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
	const filter = await messageFilter(this, itemIndex);
	if (conversationId === '') {
		const { records } = await getMany.call(this, itemIndex, run, 'messages', {}, filter);
		return await withDownloadedAttachments(this, itemIndex, run, records);
	}
	// Without Your Contact ID, Simplify tells "me" by the conversation's other contact: read it first.
	if (wantsSimplify(this, itemIndex) && !(await hasOwnContact(this)))
		await readConversation(this, run, conversationId, itemIndex);
	const listing = await getMany
		.call(this, itemIndex, run, 'messages', { conversation_id: conversationId }, filter)
		.catch(async (error: unknown) => {
			// A service that answers an unknown conversation's list with 404: said as the wrong id it is.
			if ((error as { httpCode?: unknown }).httpCode === '404')
				await readConversation(this, run, conversationId, itemIndex);
			throw error;
		});
	// Some services list an unknown conversation as empty: an empty list is checked, never taken as "no
	// messages" (a list the filters emptied is not empty).
	if (listing.listed === 0) await readConversation(this, run, conversationId, itemIndex);
	return await withDownloadedAttachments(this, itemIndex, run, listing.records);
}
