import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { FormValue } from '../../../shared/transport/form';
import { optionsCollection } from '../../descriptions/common';
import { extraBodyFields } from '../../descriptions/extraFields';
import { readExtraFields } from '../../helpers/extraFields';
import { conversationLocator } from '../../descriptions/locators';
import { dateToTimestamp, getOptionalId, getRequiredId } from '../../helpers/parameters';
import { inputError } from '../../../shared/inputError';
import type { OperationResult, RunContext } from '../../types';
import { putConversation } from './setConversationFields';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Change a conversation’s pinned message, pinned or muted state, or archive date. ${CONVERSATION}. Returns the conversation.`;

const properties: INodeProperties[] = [
	conversationLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Archived At',
				name: 'archivedAt',
				type: 'dateTime',
				default: '',
				description:
					'Archives the conversation as of this date (converted to the service’s timestamp unit). Leave empty to unarchive.',
			},
			{
				displayName: 'Is Muted',
				name: 'isMuted',
				type: 'boolean',
				default: true,
				description: 'Whether the conversation is muted',
			},
			{
				displayName: 'Is Pinned',
				name: 'isPinned',
				type: 'boolean',
				default: true,
				description: 'Whether the conversation is pinned',
			},
			{
				displayName: 'Pinned Message ID',
				name: 'pinnedMessageId',
				type: 'string',
				default: '',
				placeholder: 'msg_123',
				description:
					'The message to pin in the conversation. Leave empty to unpin the pinned message.',
			},
		],
	},
	extraBodyFields,
	optionsCollection({ isoTimestamps: true }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['conversation'], operation: ['update'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const conversationId = getRequiredId(this, 'conversationId', itemIndex, 'Conversation');
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body: { [key: string]: FormValue } = {};
	if (fields.pinnedMessageId !== undefined) {
		const id = getOptionalId(this, 'updateFields.pinnedMessageId', itemIndex, 'Pinned Message ID');
		body.pinned_message_id = id === '' ? null : id;
	}
	for (const [field, name, label] of [
		['isPinned', 'is_pinned', 'Is Pinned'],
		['isMuted', 'is_muted', 'Is Muted'],
	] as const) {
		if (fields[field] === undefined) continue;
		if (typeof fields[field] !== 'boolean')
			throw inputError(this, itemIndex, label, 'must be true or false');
		body[name] = fields[field] as boolean;
	}
	if (fields.archivedAt !== undefined) {
		if (fields.archivedAt === '' || fields.archivedAt === null) {
			body.archived_at = null;
		} else {
			body.archived_at = await dateToTimestamp(
				this,
				fields.archivedAt,
				itemIndex,
				'Archived At',
				() => run.timestampUnit(itemIndex),
			);
		}
	}
	const extra = readExtraFields(this, itemIndex, 'extraBodyFields', [
		'pinned_message_id',
		'is_pinned',
		'is_muted',
		'archived_at',
	]);
	if (Object.keys(body).length === 0 && Object.keys(extra).length === 0) {
		throw inputError(
			this,
			itemIndex,
			'Update Fields',
			'is empty: add at least one field to change',
		);
	}
	return await putConversation.call(this, itemIndex, run, conversationId, { ...body, ...extra });
}
