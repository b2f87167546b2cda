import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { hasNoRows, reactionsFromInput } from '../../helpers/reactions';
import { messagingApiRequest } from '../../../shared/transport';
import { attachmentsField, optionsCollection } from '../../descriptions/common';
import {
	attachmentSourceFields,
	attachmentUploadOptions,
} from '../../../shared/attachments/descriptions';
import { messageLocators } from '../../descriptions/locators';
import { formattedText, textFormatOption } from '../../descriptions/chatText';
import { extraBodyFields } from '../../descriptions/extraFields';
import { simplifyFields } from '../../../shared/simplify/fields';
import { readExtraFields } from '../../helpers/extraFields';
import {
	outputRecord,
	readAttachmentInput,
	withAttachments,
} from '../../../shared/attachments/upload';
import { getRequiredId, getText } from '../../helpers/parameters';
import { inputError } from '../../../shared/inputError';
import type { OperationResult, RunContext } from '../../types';
import { MESSAGE } from '../../descriptions/tool';

export const toolDescription = `Edit a message. ${MESSAGE}; Text: the new content. Returns the updated message.`;

export const simplifyAs = 'message';

const properties: INodeProperties[] = [
	...messageLocators,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			attachmentsField(
				'Replaces all attachments: a JSON array of attachment objects. [] removes them all.',
			),
			...attachmentSourceFields,
			{
				displayName: 'Reactions (JSON)',
				name: 'reactionsJson',
				type: 'json',
				default: '{}',
				description:
					'Replaces all reactions of the message with this object of reaction names and reactors, e.g. {"like": ["ann", "bob"]}. Handy with an expression that returns such an object. {} removes them all.',
			},
			{
				displayName: 'Reactions',
				name: 'reactions',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				default: {},
				placeholder: 'Add Reaction',
				description:
					'Replaces all reactions of the message. To add or remove one reaction and keep the others, use Add Reaction or Remove Reaction. From an expression, an object like {"like": ["ann", "bob"]} is accepted too.',
				options: [
					{
						displayName: 'Reaction',
						name: 'reaction',
						values: [
							{
								displayName: 'Name',
								name: 'name',
								type: 'string',
								default: '',
								placeholder: 'like',
								description: 'The reaction name, e.g. like or 👍',
							},
							{
								displayName: 'Reactors',
								name: 'reactors',
								type: 'string',
								default: '',
								placeholder: 'ann, bob',
								description: 'Who reacted: usernames or contact IDs, separated by commas',
							},
						],
					},
				],
			},
			{
				displayName: 'Text',
				name: 'text',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				description: 'Replaces the message content (an edit)',
			},
		],
	},
	extraBodyFields,
	...simplifyFields('message'),
	optionsCollection({ isoTimestamps: true, extra: [textFormatOption, ...attachmentUploadOptions] }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['update'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const messageId = getRequiredId(this, 'messageId', itemIndex, 'Message');
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	if (fields.text !== undefined) {
		const text = getText(this, 'updateFields.text', itemIndex, 'Text', {
			required: true,
			emptyProblem: 'is empty (a message cannot be edited to nothing)',
		});
		body.message = formattedText(this, itemIndex, text);
	}
	if (fields.reactions !== undefined && fields.reactionsJson !== undefined) {
		throw inputError(
			this,
			itemIndex,
			'Reactions',
			'is given twice: use either Reactions or Reactions (JSON)',
		);
	}
	for (const [field, label] of [
		['reactions', 'Reactions'],
		['reactionsJson', 'Reactions (JSON)'],
	] as const) {
		if (fields[field] === undefined) continue;
		if (field === 'reactions' && hasNoRows(fields[field])) {
			throw inputError(
				this,
				itemIndex,
				label,
				'has no rows: add a reaction row, or remove the field to keep the reactions (Reactions (JSON) {} removes them all)',
			);
		}
		try {
			body.reactions = reactionsFromInput(fields[field]);
		} catch (error) {
			throw inputError(this, itemIndex, label, (error as Error).message);
		}
	}
	const extra = readExtraFields(this, itemIndex, 'extraBodyFields', [
		'message',
		'reactions',
		'attachments',
	]);
	const attachments = await readAttachmentInput(this, itemIndex, 'updateFields');
	if (Object.keys(body).length === 0 && Object.keys(extra).length === 0 && !attachments.given) {
		throw inputError(
			this,
			itemIndex,
			'Update Fields',
			'is empty: add at least one field to change',
		);
	}
	const request = await withAttachments(
		this,
		itemIndex,
		{ method: 'PUT', path: ['messages', messageId], body: { ...body, ...extra } },
		attachments,
	);
	const record = await messagingApiRequest.call(
		this,
		request,
		run.requestOptions(itemIndex, 'record'),
	);
	return outputRecord(record, attachments);
}
