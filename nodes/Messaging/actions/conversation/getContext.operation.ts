import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { servicePages, walkPages } from '../../../shared/paginate';
import { getMessagingCredentials } from '../../../shared/transport';
import {
	otherContactOf,
	simplifyMessage,
	type SimpleMessage,
} from '../../../shared/simplify/records';
import { buildTranscript } from '../../../shared/transcript';
import { timestampValue } from '../../../shared/timestamps';
import { idText } from '../../../shared/ids';
import { optionsCollection } from '../../descriptions/common';
import { conversationLocator } from '../../descriptions/locators';
import { readConversation } from '../../helpers/conversations';
import { ownFromSetting } from '../../../shared/simplify/actionOutput';
import { dateToTimestamp, getPositiveInteger, getRequiredId } from '../../helpers/parameters';
import type { OperationResult, RunContext } from '../../types';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Read a conversation as one transcript before answering in it or to summarise it: its latest messages, oldest first, one line each ("[time] speaker: text", the account as "me", reactions summarised). ${CONVERSATION}; Max_Messages: how many (default 50, at most 500). Returns {transcript, messages, omitted, first_at, last_at}, by default at most 10,000 characters.`;

export const DEFAULT_CONTEXT_MESSAGES = 50;
export const MAX_CONTEXT_MESSAGES = 500;
export const DEFAULT_MAX_CHARACTERS = 10_000;
/** An oldest-first service is read to its end for the newest messages: at most this many pages. */
const MAX_CONTEXT_PAGES = 100;

const properties: INodeProperties[] = [
	{
		...conversationLocator,
		description: 'The conversation to read, by its ID (like conv_123), not its name',
	},
	{
		displayName: 'Max Messages',
		name: 'maxMessages',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONTEXT_MESSAGES },
		default: DEFAULT_CONTEXT_MESSAGES,
		description: `How many of the latest messages to read, 1 to ${MAX_CONTEXT_MESSAGES}`,
	},
	optionsCollection({
		isoTimestamps: false,
		extra: [
			{
				displayName: 'Max Characters',
				name: 'maxCharacters',
				type: 'number',
				typeOptions: { minValue: 200 },
				default: DEFAULT_MAX_CHARACTERS,
				description:
					'Character budget of the transcript (about 4 characters a token; counted as UTF-16 units, so most emoji count 2). The newest messages are kept whole; older ones that do not fit are left out and counted in the first line; a newest message over the budget is cut between whole characters.',
			},
			{
				displayName: 'Since',
				name: 'since',
				type: 'dateTime',
				default: '',
				description: 'Only messages sent at or after this time (ISO 8601)',
			},
		],
	}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['conversation'], operation: ['getContext'] } },
	properties,
);

/** The latest messages of a conversation as one transcript item (see shared/transcript.ts). */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const conversationId = getRequiredId(this, 'conversationId', itemIndex, 'Conversation');
	const maxMessages = Math.min(
		MAX_CONTEXT_MESSAGES,
		getPositiveInteger(this, 'maxMessages', itemIndex, 'Max Messages', DEFAULT_CONTEXT_MESSAGES),
	);
	const maxCharacters = Math.max(
		200,
		getPositiveInteger(
			this,
			'options.maxCharacters',
			itemIndex,
			'Max Characters',
			DEFAULT_MAX_CHARACTERS,
		),
	);
	const sinceInput = this.getNodeParameter('options.since', itemIndex, '') as unknown;
	const since =
		sinceInput === '' || sinceInput === undefined || sinceInput === null
			? undefined
			: await dateToTimestamp(
					this,
					sinceInput,
					itemIndex,
					'Since',
					async () => await run.timestampUnit(itemIndex),
				);

	const conversation = await readConversation(this, run, conversationId, itemIndex);
	const { records, earlier } = await latestMessages(
		this,
		run,
		itemIndex,
		conversationId,
		maxMessages,
		since,
	);

	const credentials = await getMessagingCredentials.call(this);
	const other = otherContactOf(conversation);
	const simple: SimpleMessage[] = records.map((record) =>
		simplifyMessage(record, {
			unit: credentials.timestampUnit ?? 'auto',
			own: ownFromSetting(credentials.ownContactId),
			otherContacts: other ? new Map([[conversationId, other]]) : undefined,
		}),
	);
	const groupId = idText(conversation.group_id);
	const kind = groupId ? `group ${groupId}` : `one-to-one with ${other ?? 'an unknown contact'}`;
	const count = `${simple.length} message${simple.length === 1 ? '' : 's'}`;
	const header = `Conversation ${conversationId} (${kind}): ${count}, oldest first${earlier ? '; earlier messages exist' : ''}.`;
	const result = buildTranscript(simple, { header, maxCharacters });
	const times = simple
		.map((m) => m.sent_at)
		.filter((t): t is string => t !== null)
		.sort();
	return {
		conversation_id: conversationId,
		transcript: result.transcript,
		messages: result.included,
		omitted: result.omitted,
		earlier_messages_exist: earlier,
		first_at: times[0] ?? null,
		last_at: times[times.length - 1] ?? null,
	};
}

/**
 * The newest `max` messages (at or after `since`), whatever order the service lists in. A newest-first
 * list is read until `max` or `since` is reached; an oldest-first one to its end (newest last).
 */
async function latestMessages(
	context: IExecuteFunctions,
	run: RunContext,
	itemIndex: number,
	conversationId: string,
	max: number,
	since: number | undefined,
): Promise<{ records: IDataObject[]; earlier: boolean }> {
	const fetchPage = servicePages(
		context,
		'messages',
		{ conversation_id: conversationId },
		run.requestOptions(itemIndex),
	);
	const time = (record: IDataObject) => timestampValue(record.created_at) ?? 0;
	let kept: IDataObject[] = [];
	let order: 'newest' | 'oldest' | undefined;
	let earlier = false;
	for await (const page of walkPages(fetchPage, { pageSize: 100, maxPages: MAX_CONTEXT_PAGES })) {
		kept.push(...page.records);
		if (order === undefined && kept.length >= 2) {
			const first = time(kept[0]);
			const last = time(kept[kept.length - 1]);
			if (first !== last) order = first > last ? 'newest' : 'oldest';
		}
		const inRange = since === undefined ? kept : kept.filter((r) => time(r) >= since);
		earlier ||= inRange.length < kept.length;
		kept = inRange;
		if (order !== 'oldest') {
			const reachedSince = since !== undefined && page.records.some((r) => time(r) < since);
			if (kept.length >= max || reachedSince) {
				earlier ||= kept.length > max || page.hasMore;
				break;
			}
		} else if (kept.length > max) {
			kept.sort((a, b) => time(a) - time(b));
			kept = kept.slice(-max);
			earlier = true;
		}
	}
	kept.sort((a, b) => time(b) - time(a));
	if (kept.length > max) earlier = true;
	return { records: kept.slice(0, max), earlier };
}
