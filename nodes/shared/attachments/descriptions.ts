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
	{
		displayName: 'Allow Private Addresses',
		name: 'allowPrivateAddresses',
		type: 'boolean',
		default: false,
		description:
			"Whether to download attachment URLs on internal addresses. Off: a URL (or a redirect to one) off the Base URL's origin is refused when its host is a loopback, private (10/8, 172.16/12, 192.168/16, 100.64/10), link-local (169.254/16, cloud metadata), IPv6 unique-local or link-local, IPv4-mapped form of those, or other non-public address, or a local name such as localhost, *.local, *.internal or a name without a dot; other names are resolved through n8n and every address checked (on n8n versions that give nodes its resolver). n8n's own SSRF protection applies either way.",
	},
];
