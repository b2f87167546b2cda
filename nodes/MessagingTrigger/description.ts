/** The parameters both trigger versions share. */
import type { INodeProperties } from 'n8n-workflow';

import { attachmentDownloadOptions } from '../shared/attachments/descriptions';
import { conversationLocator, isoTimestampsOption } from '../shared/descriptions';

export const conversationParameter: INodeProperties = {
	...conversationLocator,
	required: false,
	description:
		'Only messages of this conversation. Leave empty for messages of every conversation.',
};

export const listingOptions: INodeProperties[] = [
	isoTimestampsOption,
	{
		displayName: 'Emit Existing Messages on Activation',
		name: 'emitExisting',
		type: 'boolean',
		default: false,
		description:
			'Whether the first check after activation also emits the messages that already exist. Off: it only notes where the stream stands.',
	},
	{
		displayName: 'Look-Back Window (Seconds)',
		name: 'lookBackSeconds',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 60,
		description:
			'Messages that show up late with a creation time up to this much older than the newest one delivered are still delivered, once (while at most 500 messages fall within it). A larger window reads more messages per check.',
	},
	{
		displayName: 'Page Size',
		name: 'pageSize',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 1000 },
		default: 100,
		description: 'How many messages each request asks for while checking',
	},
	{
		displayName: 'Skip My Own Messages',
		name: 'skipOwnMessages',
		type: 'boolean',
		default: true,
		description:
			'Whether to leave out the messages sent by the account of the credential, so an auto-reply never answers itself. Uses "Your Contact ID" of the credential, or learns it from a one-to-one conversation.',
	},
];

/** The Options collection of both versions. */
export const optionsParameter: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [...listingOptions, ...attachmentDownloadOptions],
};
