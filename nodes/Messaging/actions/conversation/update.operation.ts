import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { FormValue } from '../../../shared/transport/form';
import { dateInputToTimestamp } from '../../../shared/timestamps';
import { optionsCollection } from '../../descriptions/common';
import { conversationLocator } from '../../descriptions/locators';
import { getRequiredId, inputError, locatorValue } from '../../helpers/parameters';
import type { OperationResult, RunContext } from '../../types';
import { updateConversation } from './setConversationFields';

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
				description: 'The message to pin in the conversation. Leave empty to unpin the pinned message.',
			},
		],
	},
	optionsCollection(true),
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
		const id = locatorValue(fields.pinnedMessageId);
		body.pinned_message_id = id === '' ? null : id;
	}
	for (const [field, name, label] of [
		['isPinned', 'is_pinned', 'Is Pinned'],
		['isMuted', 'is_muted', 'Is Muted'],
	] as const) {
		if (fields[field] === undefined) continue;
		if (typeof fields[field] !== 'boolean') throw inputError(this, itemIndex, label, 'must be true or false');
		body[name] = fields[field] as boolean;
	}
	if (fields.archivedAt !== undefined) {
		if (fields.archivedAt === '' || fields.archivedAt === null) {
			body.archived_at = null;
		} else {
			const unit = await run.timestampUnit(itemIndex);
			const timestamp = dateInputToTimestamp(fields.archivedAt, unit);
			if (timestamp === undefined) throw inputError(this, itemIndex, 'Archived At', `is not a date: ${String(fields.archivedAt)}`);
			body.archived_at = timestamp;
		}
	}
	if (Object.keys(body).length === 0) {
		throw inputError(this, itemIndex, 'Update Fields', 'is empty: add at least one field to change');
	}
	return await updateConversation.call(this, itemIndex, run, conversationId, body);
}
