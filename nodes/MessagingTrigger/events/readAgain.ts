/**
 * A delivery's keys read again after a restart, as the records its redelivery emits: a New Message key
 * is the message; an event key is read from the message or conversation it names. What is gone since
 * is left out with a log line; any other failure is thrown.
 */
import type { IDataObject, Logger } from 'n8n-workflow';

import { idText, senderOf } from '../../shared/ids';
import { servicePages, walkPages } from '../../shared/paginate';
import {
	messagingApiRequest,
	type RequestContext,
	type RequestOptions,
} from '../../shared/transport';
import { MAX_TRIGGER_PAGES_PER_CHECK } from '../listing';
import { asRecord, burstItem, eventItem, type MessageOutputSettings } from '../output';
import { toTriggerMessage, type TriggerMessage } from '../pollState';
import { onlyNewMessages, type EventSettings } from './settings';

export type ParsedKey =
	| { kind: 'newMessage'; id: string }
	| { kind: 'messageEdited'; id: string }
	| { kind: 'reactionAdded' | 'reactionRemoved'; id: string; reaction: string; reactor: string }
	| { kind: 'newConversation'; id: string }
	| { kind: 'messageBurst'; firstId: string; lastId: string };

/** What a delivery key names (see plan.ts's PlannedDelivery). */
export function parseKey(key: string): ParsedKey {
	const edited = /^edited:(.*)@[^@]*$/.exec(key);
	if (edited) return { kind: 'messageEdited', id: edited[1] };
	const reaction = /^reaction([+-]):([^:]*):(.*):([^:]*)$/.exec(key);
	if (reaction)
		return {
			kind: reaction[1] === '+' ? 'reactionAdded' : 'reactionRemoved',
			id: reaction[2],
			reaction: reaction[3],
			reactor: reaction[4],
		};
	const conversation = /^conversation:(.*)$/.exec(key);
	if (conversation) return { kind: 'newConversation', id: conversation[1] };
	const burst = /^burst:(.*)\.\.(.*)$/.exec(key);
	if (burst) return { kind: 'messageBurst', firstId: burst[1], lastId: burst[2] };
	return { kind: 'newMessage', id: key };
}

async function readRecord(
	context: RequestContext,
	collection: 'messages' | 'conversations',
	id: string,
	requests: RequestOptions,
): Promise<IDataObject | undefined> {
	return await messagingApiRequest
		.call(context, { method: 'GET', path: [collection, id] }, { ...requests, expect: 'record' })
		.catch((error: unknown) => {
			if ((error as { httpCode?: string }).httpCode !== '404') throw error;
			return undefined;
		});
}

async function readMessage(context: RequestContext, id: string, requests: RequestOptions) {
	const record = await readRecord(context, 'messages', id, requests);
	return record && toTriggerMessage(record);
}

/** A burst's messages: its first and last, and those of the same sender between them in its conversation. */
async function readBurst(
	context: RequestContext,
	firstId: string,
	lastId: string,
	requests: RequestOptions,
): Promise<TriggerMessage[] | undefined> {
	const first = await readMessage(context, firstId, requests);
	const last = firstId === lastId ? first : await readMessage(context, lastId, requests);
	if (!first || !last) return undefined;
	const sender = senderOf(first).id;
	const between = new Map<string, TriggerMessage>([
		[first.id, first],
		[last.id, last],
	]);
	const fetchPage = servicePages(
		context,
		'messages',
		{ conversation_id: idText(first.conversation_id) },
		requests,
	);
	for await (const page of walkPages(fetchPage, {
		pageSize: 100,
		maxPages: MAX_TRIGGER_PAGES_PER_CHECK,
	})) {
		const messages = page.records.map(toTriggerMessage).filter((m): m is TriggerMessage => !!m);
		for (const m of messages) {
			if (m.created_at < first.created_at || m.created_at > last.created_at) continue;
			if (senderOf(m).id === sender) between.set(m.id, m);
		}
		if (messages.length > 0 && messages.every((m) => m.created_at < first.created_at)) break;
	}
	return [...between.values()].sort((a, b) => a.created_at - b.created_at);
}

/** The records of `keys` to emit again, in order, in the shape the trigger's options give them. */
export async function readDeliveryAgain(
	context: RequestContext,
	keys: string[],
	logger: Logger,
	options: { events: EventSettings; output: MessageOutputSettings },
	requests: RequestOptions = {},
): Promise<TriggerMessage[]> {
	const records: TriggerMessage[] = [];
	const { output } = options;
	for (const key of keys) {
		const parsed = parseKey(key);
		let record: TriggerMessage | undefined;
		if (parsed.kind === 'newMessage') {
			const message = await readMessage(context, parsed.id, requests);
			record =
				message && !onlyNewMessages(options.events)
					? asRecord(key, eventItem('newMessage', { message }, output))
					: message;
		} else if (parsed.kind === 'newConversation') {
			const conversation = await readRecord(context, 'conversations', parsed.id, requests);
			if (conversation)
				record = asRecord(key, eventItem('newConversation', { conversation }, output));
		} else if (parsed.kind === 'messageBurst') {
			const burst = await readBurst(context, parsed.firstId, parsed.lastId, requests);
			if (burst) record = asRecord(key, burstItem(burst, output));
		} else {
			const message = await readMessage(context, parsed.id, requests);
			const fields: IDataObject & { message?: object } = { message };
			if (parsed.kind === 'messageEdited') fields.after = { message: message?.message ?? '' };
			else Object.assign(fields, { reaction: parsed.reaction, reactor: parsed.reactor });
			if (message) record = asRecord(key, eventItem(parsed.kind, fields, output));
		}
		if (record) records.push(record);
		else logger.warn(`Messaging Trigger: what ${key} names is gone; it is not delivered again`);
	}
	return records;
}
