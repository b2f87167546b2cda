/** The parameters both trigger versions share. */
import type { INodeProperties } from 'n8n-workflow';

import { attachmentDownloadOptions } from '../shared/attachments/descriptions';
import { downloadBudget, PARALLEL_DOWNLOADS } from '../shared/attachments/triggerDownloads';
import { conversationLocator, isoTimestampsOption } from '../shared/descriptions';
import { triggerSimplifyOption } from '../shared/simplify/fields';

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
	triggerSimplifyOption,
	{
		displayName: 'Skip My Own Messages',
		name: 'skipOwnMessages',
		type: 'boolean',
		default: true,
		description:
			'Whether to leave out the messages sent by the account of the credential, so an auto-reply never answers itself. Uses "Your Contact ID" of the credential, or learns it from a one-to-one conversation.',
	},
];

/** On the trigger, Download Attachments also says how long a check waits for its files. */
const triggerDownloadOptions = attachmentDownloadOptions.map((option) =>
	option.name === 'downloadAttachments'
		? {
				...option,
				description: `${option.description}. A check gives its downloads three quarters of its interval in whole seconds (at most ${downloadBudget(Infinity, 0).ms / 1000} s; version 1 and Fetch Test Event: ${downloadBudget(60_000, 0).ms / 1000} s), ${PARALLEL_DOWNLOADS} files at a time; a file not fetched by then is named in attachmentErrors and its message is delivered without it.`,
			}
		: option,
);

/** The Options collection of both versions. */
export const optionsParameter: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [...listingOptions, ...triggerDownloadOptions],
};

/** Version 2: what starts the workflow. */
export const eventsParameter: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	options: [
		{
			name: 'Message Edited',
			value: 'messageEdited',
			description: 'A message in the watch window whose text changed',
		},
		{ name: 'New Conversation', value: 'newConversation' },
		{ name: 'New Message', value: 'newMessage' },
		{
			name: 'Reaction Added',
			value: 'reactionAdded',
			description: 'One item per reaction and person, on messages in the watch window',
		},
		{
			name: 'Reaction Removed',
			value: 'reactionRemoved',
			description: 'One item per reaction and person, on messages in the watch window',
		},
	],
	default: ['newMessage'],
	description:
		'What starts the workflow. With anything but New Message alone, every item is {event, message or conversation, ...}.',
};

const eventOptions: INodeProperties[] = [
	{
		displayName: 'Group Bursts',
		name: 'groupBursts',
		type: 'boolean',
		default: false,
		description:
			'Whether messages of one conversation from one sender, each within the quiet period of the one before, are delivered as one item (their texts joined) once the sender has been quiet that long',
	},
	{
		displayName: 'Maximum Wait (Seconds)',
		name: 'maxWait',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 3600 },
		default: 60,
		description:
			'Group Bursts: a burst is delivered at the latest this long after its first message',
	},
	{
		displayName: 'Quiet Period (Seconds)',
		name: 'quietPeriod',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 3600 },
		default: 10,
		description:
			'Group Bursts: how long a sender must have been quiet for their burst to be delivered (plus up to one check interval)',
	},
	{
		displayName: 'Watch Window (Messages)',
		name: 'watchWindow',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 200 },
		default: 20,
		description:
			'Message Edited and reactions: how many of the newest messages each check compares with the last. Changes to older messages are not seen; above the page size this costs one more request per check.',
	},
];

/** Version 2's Options: version 1's and those of its events. */
export const optionsParameterV2: INodeProperties = {
	...optionsParameter,
	options: [...listingOptions, ...triggerDownloadOptions, ...eventOptions].sort((a, b) =>
		a.displayName.localeCompare(b.displayName),
	),
};
