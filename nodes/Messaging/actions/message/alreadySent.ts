/**
 * Send's duplicate check: whether the account already sent this text into the conversation after the
 * message being answered, so a workflow run again for the same message (a marked redelivery) does
 * not answer twice. docs/exactly-once.md.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { senderOf, sentByOneOf } from '../../../shared/ids';
import { servicePages, walkPages } from '../../../shared/paginate';
import { timestampValue } from '../../../shared/timestamps';
import type { RequestContext, RequestOptions } from '../../../shared/transport';

export type DuplicateCheck = 'redeliveries' | 'always' | 'never';

const skipIfAlreadySentField: INodeProperties = {
	displayName: 'Skip If Already Sent',
	name: 'skipIfAlreadySent',
	type: 'options',
	options: [
		{
			name: 'For Redelivered Items',
			value: 'redeliveries',
			description:
				'Only for an item the Messaging Trigger marked as a redelivery (its earlier run may have sent the reply already): one list request for such items, none for the others',
		},
		{
			name: 'Always',
			value: 'always',
			description: 'For every item that carries the ID of the message it answers',
		},
		{ name: 'Never', value: 'never', description: 'Always send' },
	],
	default: 'redeliveries',
	description:
		"Whether to look at the conversation's messages after the one being answered (the input item's ID) and, when the account already sent this same text there, output that message with alreadySent: true instead of sending again",
};

/** A new default is a new node version: version 1 keeps sending every item as before. */
export const skipIfAlreadySentFields: INodeProperties[] = [
	{ ...skipIfAlreadySentField, default: 'never', displayOptions: { show: { '@version': [1] } } },
	{ ...skipIfAlreadySentField, displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } } },
];

/** Pages read at most: the answered message is normally on the first one. */
const MAX_ALREADY_SENT_PAGES = 3;

/** The id of the message being answered, from the input item (the trigger's output), when the check applies. */
export function answeredMessage(item: IDataObject, check: DuplicateCheck): string | undefined {
	if (check === 'never') return undefined;
	if (check === 'redeliveries' && item.redelivery !== true) return undefined;
	const id = typeof item.id === 'string' || typeof item.id === 'number' ? String(item.id) : '';
	return id === '' ? undefined : id;
}

/** Compared only with timestamps of the same listing, so in the service's own unit. */
function createdAt(record: IDataObject): number | undefined {
	return timestampValue(record.created_at);
}

/**
 * For each text, the account's message with that text sent after `answered` in `conversationId`, if any
 * (each message found once: a text split into parts may repeat a part). "The account's": from the
 * credential's own contact when set, else from anyone but the answered message's sender.
 */
export async function findAlreadySent(
	this: IExecuteFunctions,
	options: RequestOptions,
	search: { conversationId: string; texts: string[]; answered: string },
	ownContactId: string | undefined,
): Promise<Array<IDataObject | undefined>> {
	const { conversationId, texts, answered } = search;
	const none = texts.map(() => undefined);
	const fetchPage = servicePages(
		this as unknown as RequestContext,
		'messages',
		{ conversation_id: conversationId },
		options,
	);
	const listed: IDataObject[] = [];
	let original: IDataObject | undefined;
	for await (const page of walkPages(fetchPage, { maxPages: MAX_ALREADY_SENT_PAGES })) {
		listed.push(...page.records);
		original ??= page.records.find((r) => String(r.id) === answered);
		if (original) break;
	}
	// Not found (deleted, or far down the conversation): nothing tells what came after it; send.
	const since = original && createdAt(original);
	if (original === undefined || since === undefined) return none;
	const answeredSender = senderOf(original).id;
	const fromAccount = (record: IDataObject) =>
		ownContactId
			? sentByOneOf(record, [ownContactId])
			: answeredSender !== undefined && senderOf(record).id !== answeredSender;
	const candidates = listed.filter((record) => {
		const at = createdAt(record);
		return String(record.id) !== answered && at !== undefined && at >= since && fromAccount(record);
	});
	const used = new Set<IDataObject>();
	return texts.map((text) => {
		const found = candidates.find((record) => !used.has(record) && record.message === text);
		if (found) used.add(found);
		return found;
	});
}
