import type { INodeProperties } from 'n8n-workflow';

import { toolTexts } from '../../descriptions/tool';
import type { MessagingOperation } from '../../types';
import * as archive from './archive.operation';
import * as create from './create.operation';
import * as deleteConversation from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getContext from './getContext.operation';
import * as mute from './mute.operation';
import * as pin from './pin.operation';
import * as unarchive from './unarchive.operation';
import * as unmute from './unmute.operation';
import * as unpin from './unpin.operation';
import * as update from './update.operation';

export const operations: Record<string, MessagingOperation> = {
	archive,
	create,
	delete: deleteConversation,
	get,
	getAll,
	getContext,
	mute,
	pin,
	unarchive,
	unmute,
	unpin,
	update,
};

export const toolDescriptions = toolTexts(operations);

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['conversation'] } },
		options: [
			{
				name: 'Archive',
				value: 'archive',
				description: 'Archive a conversation (sets Archived At to now); it stays restorable',
				action: 'Archive a conversation',
			},
			{
				name: 'Create',
				value: 'create',
				description: 'Start a conversation with a contact or a group',
				action: 'Create a conversation',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a conversation and all its messages permanently',
				action: 'Delete a conversation',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a conversation by ID',
				action: 'Get a conversation',
			},
			{
				name: 'Get Context',
				value: 'getContext',
				description:
					'The latest messages of a conversation as one transcript, oldest first, for an AI agent or a summary',
				action: 'Get a conversation transcript',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List conversations, optionally only archived, muted, pinned, of a group, or by creation or last activity',
				action: 'Get many conversations',
			},
			{
				name: 'Mute',
				value: 'mute',
				description: 'Mute a conversation',
				action: 'Mute a conversation',
			},
			{
				name: 'Pin',
				value: 'pin',
				description: 'Pin a conversation',
				action: 'Pin a conversation',
			},
			{
				name: 'Unarchive',
				value: 'unarchive',
				description: 'Restore an archived conversation',
				action: 'Unarchive a conversation',
			},
			{
				name: 'Unmute',
				value: 'unmute',
				description: 'Unmute a conversation',
				action: 'Unmute a conversation',
			},
			{
				name: 'Unpin',
				value: 'unpin',
				description: 'Unpin a conversation',
				action: 'Unpin a conversation',
			},
			{
				name: 'Update',
				value: 'update',
				description:
					'Change a conversation’s pinned message, pinned or muted state, or archive date',
				action: 'Update a conversation',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...getContext.description,
	...create.description,
	...get.description,
	...update.description,
	...deleteConversation.description,
	...archive.description,
	...unarchive.description,
	...pin.description,
	...unpin.description,
	...mute.description,
	...unmute.description,
];
