/**
 * Get Many's filters the node applies itself on each page (the spec's lists take none of them): dates,
 * sender, unread, text and activity. The Limit counts the records they keep.
 */
import type { INodeProperties } from 'n8n-workflow';

type Noun = 'messages' | 'conversations';

function dateFilter(displayName: string, name: string, description: string): INodeProperties {
	return { displayName, name, type: 'dateTime', default: '', description };
}

/** Created After and Created Before, which may end the paging early (the lists are ordered by creation). */
export function createdFilters(noun: Noun): INodeProperties[] {
	return [
		dateFilter(
			'Created After',
			'createdAfter',
			`Only ${noun} created at or after this time. Once the pages read show the list going from newer to older, paging stops after the first page created wholly before it.`,
		),
		dateFilter(
			'Created Before',
			'createdBefore',
			`Only ${noun} created before this time. Once the pages read show the list going from older to newer, paging stops after the first page created wholly at or after it.`,
		),
	];
}

export const lastActiveFilters: INodeProperties[] = [
	dateFilter(
		'Last Active After',
		'lastActiveAfter',
		'Only conversations last active at or after this time. Conversations never active do not match. Every page is read.',
	),
	dateFilter(
		'Last Active Before',
		'lastActiveBefore',
		'Only conversations last active before this time. Conversations never active do not match (Never Active finds them). Every page is read.',
	),
];

export const neverActiveFilter: INodeProperties = {
	displayName: 'Never Active',
	name: 'neverActive',
	type: 'boolean',
	default: true,
	description:
		'Whether to return only conversations never active, with no last_active_at (on), or only those active at least once (off)',
};

export const messageFilters: INodeProperties[] = [
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '',
		placeholder: 'ct_123, @ann',
		description:
			'Only messages sent by these contacts: contact IDs, or @ and a username, comma-separated. An entry without @ is matched as a contact ID only.',
	},
	{
		displayName: 'Text Contains',
		name: 'textContains',
		type: 'string',
		default: '',
		description: 'Only messages whose text contains this, ignoring upper and lower case',
	},
	{
		displayName: 'Unread Only',
		name: 'unreadOnly',
		type: 'boolean',
		default: true,
		description:
			'Whether to return only messages not read yet, with no read_at (on), or read and unread alike (off)',
	},
];
