/**
 * A delivery's keys read again after a restart, as the decisions its redelivery emits: a New Message is
 * its message; any other event is read from the message or conversation its key names. What is gone
 * since is left out with a log line; any other failure is thrown.
 */
import type { IDataObject, Logger } from 'n8n-workflow';

import { idText, senderOf } from '../../shared/ids';
import { servicePages, walkPages } from '../../shared/paginate';
import {
	messagingApiRequest,
	type RequestContext,
	type RequestOptions,
} from '../../shared/transport';
import { keyText, type Decision, type DeliveryKey } from '../decisions';
import { MAX_TRIGGER_PAGES_PER_CHECK } from '../listing';
import { toTriggerMessage, type TriggerMessage } from '../triggerState';

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

/** What a key names, read again: its decision, or undefined when it is gone. */
async function readDecision(
	context: RequestContext,
	key: DeliveryKey,
	requests: RequestOptions,
): Promise<Decision | undefined> {
	if (typeof key === 'string') {
		const message = await readMessage(context, key, requests);
		return message && { event: 'newMessage', key, message };
	}
	switch (key.kind) {
		case 'newConversation': {
			const conversation = await readRecord(context, 'conversations', key.id, requests);
			return conversation && { event: 'newConversation', key, conversation };
		}
		case 'messageBurst': {
			const messages = await readBurst(context, key.firstId, key.lastId, requests);
			return messages && { event: 'messageBurst', key, messages };
		}
		case 'messageEdited': {
			const message = await readMessage(context, key.id, requests);
			return (
				message && {
					event: 'messageEdited',
					key,
					message,
					after: { message: message.message ?? '' },
				}
			);
		}
		default: {
			const message = await readMessage(context, key.id, requests);
			return message && { event: key.kind, key, message };
		}
	}
}

/** The decisions of `keys` to emit again, in order. */
export async function readAgain(
	context: RequestContext,
	keys: DeliveryKey[],
	logger: Logger,
	requests: RequestOptions = {},
): Promise<Decision[]> {
	const decisions: Decision[] = [];
	for (const key of keys) {
		const decision = await readDecision(context, key, requests);
		if (decision) decisions.push(decision);
		else
			logger.warn(
				`Messaging Trigger: what ${keyText(key)} names is gone; it is not delivered again`,
			);
	}
	return decisions;
}
