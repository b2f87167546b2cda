import type { INodeProperties } from 'n8n-workflow';

import { maxSizeOption } from '../../shared/attachments/descriptions';

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
