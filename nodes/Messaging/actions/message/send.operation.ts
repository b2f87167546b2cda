import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getMessagingCredentials, messagingApiRequest } from '../../../shared/transport';
import { attachmentsField, optionsCollection } from '../../descriptions/common';
import { attachmentSourceFields, attachmentUploadOptions } from '../../descriptions/attachments';
import { extraBodyFields } from '../../descriptions/extraFields';
import { conversationLocator } from '../../descriptions/locators';
import { simplifyFields } from '../../descriptions/simplify';
import {
	outputRecord,
	readAttachmentInput,
	withAttachments,
} from '../../helpers/attachments/upload';
import { readExtraFields } from '../../helpers/extraFields';
import { getRequiredId, getText } from '../../helpers/parameters';
import type { OperationResult, RunContext } from '../../types';
import {
	answeredMessage,
	findAlreadySent,
	skipIfAlreadySentFields,
	type DuplicateCheck,
} from './alreadySent';

export const simplifyAs = 'sentMessage';

/** The body fields Send sets itself. */
const SENT_FIELDS = ['conversation_id', 'message', 'attachments'];

/** One at a time: messages reach the conversation in item order. */
export const parallelRequests = 1;

const properties: INodeProperties[] = [
	{ ...conversationLocator, description: 'The conversation to send the message to' },
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		description: 'The message content to send',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			attachmentsField(
				'Attachment objects as a JSON array, e.g. [{"name": "report.pdf", "size": 1024}]',
			),
			...attachmentSourceFields,
		],
	},
	extraBodyFields,
	...skipIfAlreadySentFields,
	...simplifyFields('message'),
	optionsCollection({
		isoTimestamps: true,
		extra: attachmentUploadOptions,
		parallel: {
			default: parallelRequests,
			note: 'Kept at 1, messages reach the conversation in item order; above 1 they may arrive in any order.',
		},
	}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['send'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const conversationId = getRequiredId(this, 'conversationId', itemIndex, 'Conversation');
	const text = getText(this, 'text', itemIndex, 'Text', { required: true });
	const extra = readExtraFields(this, itemIndex, 'extraBodyFields', SENT_FIELDS);
	const attachments = await readAttachmentInput(this, itemIndex, 'additionalFields');
	const check = this.getNodeParameter('skipIfAlreadySent', itemIndex, 'never') as DuplicateCheck;
	const answered = answeredMessage(this.getInputData()[itemIndex]?.json ?? {}, check);
	if (answered !== undefined) {
		const { ownContactId } = await getMessagingCredentials.call(this);
		const search = { conversationId, text, answered };
		const sent = await findAlreadySent.call(
			this,
			run.requestOptions(itemIndex),
			search,
			ownContactId,
		);
		if (sent) return { ...sent, alreadySent: true };
	}
	const request = await withAttachments(
		this,
		itemIndex,
		{
			method: 'POST',
			path: ['messages'],
			body: { conversation_id: conversationId, message: text, ...extra },
		},
		attachments,
	);
	const record = await messagingApiRequest.call(
		this,
		request,
		run.requestOptions(itemIndex, 'record'),
	);
	return outputRecord(record, attachments);
}
