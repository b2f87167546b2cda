/** The parameters of attachment downloads, shared by the Messaging node's reads and the trigger. */
import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_MAX_SIZE_MB } from './encoding';

export const maxSizeOption: INodeProperties = {
	displayName: 'Max Attachment Size (MB)',
	name: 'maxAttachmentSize',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 1 },
	default: DEFAULT_MAX_SIZE_MB,
	description:
		'The largest file sent or downloaded; a larger one is an error naming it. 0 means no limit.',
};

/** Get, Get Many, Send and Wait for Reply and the trigger: each message's attachments as binary fields. */
export const attachmentDownloadOptions: INodeProperties[] = [
	{
		displayName: 'Download Attachments',
		name: 'downloadAttachments',
		type: 'boolean',
		default: false,
		description:
			'Whether to download each attachment of each message into a binary field (attachment_0, attachment_1, …)',
	},
	{
		displayName: 'Attachment URL Field',
		name: 'attachmentUrlField',
		type: 'string',
		default: '',
		placeholder: 'url',
		description:
			'The attachment field holding its file’s URL. Empty: the first of URL, download_url and href; without a URL, inline base64 in data or content.',
	},
	maxSizeOption,
];
