import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { messagingApiRequest } from '../../../shared/transport';
import { attachmentDownloadOptions } from '../../../shared/attachments/descriptions';
import { optionsCollection } from '../../descriptions/common';
import { messageLocators } from '../../descriptions/locators';
import { getRequiredId } from '../../helpers/parameters';
import { hasOwnContact, readConversation } from '../../helpers/conversations';
import { wantsSimplify } from '../../../shared/simplify/actionOutput';
import { idText } from '../../../shared/ids';
import { simplifyFields } from '../../../shared/simplify/fields';
import { withDownloadedAttachments } from '../../../shared/attachments/actionDownloads';
import type { OperationResult, RunContext } from '../../types';
import { MESSAGE, MESSAGE_FIELDS } from '../../descriptions/tool';

export const toolDescription = `Get one message. ${MESSAGE}. Returns ${MESSAGE_FIELDS}, about 300 characters.`;

export const simplifyAs = 'message';

const properties: INodeProperties[] = [
	...messageLocators,
	...simplifyFields('message'),
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
	const message = await messagingApiRequest.call(
		this,
		{ method: 'GET', path: ['messages', messageId] },
		run.requestOptions(itemIndex, 'record'),
	);
	// Simplify's from_me: without "Your Contact ID" on the credential, the conversation tells who is who.
	const conversationId = idText(message.conversation_id);
	if (conversationId && wantsSimplify(this, itemIndex) && !(await hasOwnContact(this))) {
		await readConversation(this, run, conversationId, itemIndex);
	}
	return await withDownloadedAttachments(this, itemIndex, run, message);
}
