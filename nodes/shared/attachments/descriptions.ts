/** The attachments' parameters: uploads (Send, Update) and downloads (the Messaging node's reads, the trigger). */
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

/** Send and Update: attachments from the item's binary data and from URLs (beside Attachments (JSON)). */
export const attachmentSourceFields: INodeProperties[] = [
	{
		displayName: 'Attachments From Binary Data',
		name: 'binaryAttachments',
		type: 'string',
		default: 'data',
		placeholder: 'data, invoice',
		description:
			'Names of the input item’s binary fields to send as files, separated by commas. Each item sends its own files.',
	},
	{
		displayName: 'Attachments From URLs',
		name: 'urlAttachments',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		placeholder: 'Add URL',
		description:
			'Files the service fetches itself: each URL is sent as the attachment’s URL field, the file is not downloaded by n8n',
		options: [
			{
				displayName: 'Attachment',
				name: 'attachment',
				values: [
					{
						displayName: 'URL',
						name: 'url',
						type: 'string',
						default: '',
						placeholder: 'https://example.com/report.pdf',
					},
					{
						displayName: 'File Name',
						name: 'fileName',
						type: 'string',
						default: '',
						description: 'Sent as the attachment’s name; left out when empty',
					},
				],
			},
		],
	},
];

/** Send and Update options: how files go on the wire, since the spec names no attachment field. */
export const attachmentUploadOptions: INodeProperties[] = [
	{
		displayName: 'Attachment Upload',
		name: 'attachmentUpload',
		type: 'options',
		default: 'form',
		options: [
			{
				name: 'Form Fields (Base64)',
				value: 'form',
				description:
					'Each file as base64 in the form field attachments[0][data], beside the other fields',
			},
			{
				name: 'Multipart Upload',
				value: 'multipart',
				description: 'A multipart/form-data body, each file a part named attachments[0][data]',
			},
		],
		description: 'How files from binary data are sent',
	},
	{
		displayName: 'Attachment Field Names',
		name: 'attachmentFieldNames',
		type: 'fixedCollection',
		default: {},
		placeholder: 'Set Field Names',
		description:
			'The names the service gives an attachment’s fields; an empty name leaves that field out',
		options: [
			{
				displayName: 'Names',
				name: 'names',
				values: [
					{ displayName: 'Data', name: 'data', type: 'string', default: 'data' },
					{ displayName: 'File Name', name: 'name', type: 'string', default: 'name' },
					{ displayName: 'MIME Type', name: 'mimeType', type: 'string', default: 'mime_type' },
					{ displayName: 'Size', name: 'size', type: 'string', default: 'size' },
					{ displayName: 'URL', name: 'url', type: 'string', default: 'url' },
				],
			},
		],
	},
	{
		displayName: 'Extra Attachment Fields',
		name: 'attachmentExtraFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		placeholder: 'Add Field',
		description: 'Fields added to every attachment sent, e.g. type=document',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
	maxSizeOption,
];
