import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getMessagingCredentials, messagingApiRequest } from '../../../shared/transport';
import { attachmentsField, optionsCollection } from '../../descriptions/common';
import {
	attachmentSourceFields,
	attachmentUploadOptions,
} from '../../../shared/attachments/descriptions';
import { extraBodyFields } from '../../descriptions/extraFields';
import { conversationLocator } from '../../descriptions/locators';
import { simplifyFields } from '../../../shared/simplify/fields';
import {
	outputRecord,
	readAttachmentInput,
	withAttachments,
	type AttachmentInput,
} from '../../../shared/attachments/upload';
import { readExtraFields } from '../../helpers/extraFields';
import { getRequiredId, getText } from '../../helpers/parameters';
import {
	formattedText,
	splitLongTextOption,
	textFormatOption,
	messageParts,
} from '../../descriptions/chatText';
import { idText } from '../../../shared/ids';
import type { OperationResult, RunContext } from '../../types';
import {
	answeredMessage,
	findAlreadySent,
	skipIfAlreadySentFields,
	type DuplicateCheck,
} from './alreadySent';
import { CONVERSATION, MESSAGE_FIELDS } from '../../descriptions/tool';

export const toolDescription = `Send a text message to a conversation. ${CONVERSATION}; Text: the message. Returns the sent message (${MESSAGE_FIELDS}), about 300 characters.`;

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
		extra: [textFormatOption, splitLongTextOption, ...attachmentUploadOptions],
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
	const parts = messageParts(this, itemIndex, formattedText(this, itemIndex, text));
	const extra = readExtraFields(this, itemIndex, 'extraBodyFields', SENT_FIELDS);
	const attachments = await readAttachmentInput(this, itemIndex, 'additionalFields');
	const check = this.getNodeParameter('skipIfAlreadySent', itemIndex, 'never') as DuplicateCheck;
	const answered = answeredMessage(this.getInputData()[itemIndex]?.json ?? {}, check);
	let found: Array<IDataObject | undefined> = parts.map(() => undefined);
	if (answered !== undefined) {
		const { ownContactId } = await getMessagingCredentials.call(this);
		const search = { conversationId, texts: parts, answered };
		found = await findAlreadySent.call(this, run.requestOptions(itemIndex), search, ownContactId);
		if (found.every((record) => record !== undefined))
			return withParts({ ...found[0], alreadySent: true }, found);
	}
	const sent: IDataObject[] = [];
	for (const [index, part] of parts.entries()) {
		const already = found[index];
		// The files go with the first part.
		const files = index === 0 ? attachments : NO_ATTACHMENTS(attachments);
		try {
			sent.push(
				already ?? (await sendOne.call(this, itemIndex, run, conversationId, part, extra, files)),
			);
		} catch (error) {
			throw withPartsSent(error, sent, index, parts.length);
		}
	}
	return withParts(outputRecord(sent[0], attachments), sent);
}

async function sendOne(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	conversationId: string,
	text: string,
	extra: IDataObject,
	attachments: AttachmentInput,
): Promise<IDataObject> {
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
	return await messagingApiRequest.call(this, request, run.requestOptions(itemIndex, 'record'));
}

const NO_ATTACHMENTS = (input: AttachmentInput): AttachmentInput => ({
	...input,
	given: false,
	json: [],
	files: [],
	urls: [],
});

/** A split text's output: the first part's record, with every part's ID in order. */
function withParts(record: IDataObject, parts: Array<IDataObject | undefined>): IDataObject {
	return parts.length > 1 ? { ...record, parts: parts.map((p) => idText(p?.id) ?? null) } : record;
}

/** A failed part's error says which parts went out before it, so nobody sends them again by hand. */
function withPartsSent(error: unknown, sent: IDataObject[], index: number, count: number): unknown {
	if (count === 1 || !(error instanceof Error)) return error;
	const ids = sent.map((r) => idText(r.id)).join(', ');
	const note = `Part ${index + 1} of ${count} was not sent${ids ? `; parts sent before it: ${ids}` : ''}.`;
	const described = error as Error & { description?: string | null };
	described.description = described.description ? `${described.description} ${note}` : note;
	return error;
}
