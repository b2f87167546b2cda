import type { INodeProperties } from 'n8n-workflow';

import { toolTexts } from '../../descriptions/tool';
import type { MessagingOperation } from '../../types';
import * as addReaction from './addReaction.operation';
import * as deleteMessage from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as removeReaction from './removeReaction.operation';
import * as send from './send.operation';
import * as sendAndWait from './sendAndWait.operation';
import * as sendAndWaitForReply from './sendAndWaitForReply.operation';
import * as update from './update.operation';

export const operations: Record<string, MessagingOperation> = {
	addReaction,
	delete: deleteMessage,
	get,
	getAll,
	removeReaction,
	send,
	sendAndWaitForReply,
	update,
};

/** Send and Wait for Response parks the whole execution once per run: the router hands it the run, not items. */
export const { executeSendAndWait } = sendAndWait;

export const toolDescriptions = toolTexts({ ...operations, sendAndWait });

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Add Reaction',
				value: 'addReaction',
				description: 'Add a reaction to a message, keeping the reactions already there',
				action: 'Add a reaction to a message',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a message permanently',
				action: 'Delete a message',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a message by ID',
				action: 'Get a message',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List messages in the order the service returns them, optionally of one conversation, by date, sender, unread or text',
				action: 'Get many messages',
			},
			{
				name: 'Remove Reaction',
				value: 'removeReaction',
				description: 'Remove one person’s reaction from a message, keeping the others',
				action: 'Remove a reaction from a message',
			},
			{
				name: 'Send',
				value: 'send',
				description: 'Send a message to a conversation',
				action: 'Send a message',
			},
			{
				name: 'Send and Wait for Reply',
				value: 'sendAndWaitForReply',
				description:
					'Send a message, then wait (up to an hour) for the next message in the conversation from someone else',
				action: 'Send a message and wait for a reply in the chat',
			},
			{
				name: 'Send and Wait for Response',
				value: 'sendAndWait',
				description:
					'Send a message with a link to an approval or answer page; the execution waits until the person answers there (opening the link alone decides nothing)',
				action: 'Send a message and wait for response',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Edit a message’s text, or replace its reactions or attachments',
				action: 'Update a message',
			},
		],
		default: 'send',
	},
	...getAll.description,
	...send.description,
	...sendAndWait.description,
	...sendAndWaitForReply.description,
	...get.description,
	...update.description,
	...deleteMessage.description,
	...addReaction.description,
	...removeReaction.description,
];
