/**
 * A delivery's keys read again after a restart, as the decisions its redelivery emits: a New Message is
 * its message; any other event is read from the message or conversation its key names. A message the
 * lost deliveries' listing found (listAgain.ts) is taken from it; any other is read by itself. What is
 * gone since is left out with a log line; any other failure is thrown.
 */
import type { IDataObject, Logger } from 'n8n-workflow';

import { idText } from '../../shared/ids';
import { servicePages, walkPages } from '../../shared/paginate';
import {
	messagingApiRequest,
	type RequestContext,
	type RequestOptions,
} from '../../shared/transport';
import { keyText, type Decision, type DeliveryKey } from '../decisions';
import { MAX_TRIGGER_PAGES_PER_CHECK, statusOf } from '../listing';
import { toTriggerMessage, triggerMessagesOf, type TriggerMessage } from '../triggerState';
import { burstMessages, listedBurst } from './recoveryPlan';

async function readRecord(
	context: RequestContext,
	collection: 'messages' | 'conversations',
	id: string,
	requests: RequestOptions,
): Promise<IDataObject | undefined> {
	return await messagingApiRequest
		.call(context, { method: 'GET', path: [collection, id] }, { ...requests, expect: 'record' })
		.catch((error: unknown) => {
			if (statusOf(error) !== '404') throw error;
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
	const listed: TriggerMessage[] = [];
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
		const messages = triggerMessagesOf(page.records);
		listed.push(
			...messages.filter(
				(m) => m.created_at >= first.created_at && m.created_at <= last.created_at,
			),
		);
		if (messages.length > 0 && messages.every((m) => m.created_at < first.created_at)) break;
	}
	return burstMessages(first, last, listed);
}

/** What a key names, read again: its decision, or undefined when it is gone. */
async function readDecision(
	context: RequestContext,
	key: DeliveryKey,
	requests: RequestOptions,
	listed: Map<string, TriggerMessage>,
): Promise<Decision | undefined> {
	const message = async (id: string) =>
		listed.get(id) ?? (await readMessage(context, id, requests));
	if (typeof key === 'string') {
		const found = await message(key);
		return found && { event: 'newMessage', key, message: found };
	}
	switch (key.kind) {
		case 'newConversation': {
			const conversation = await readRecord(context, 'conversations', key.id, requests);
			return conversation && { event: 'newConversation', key, conversation };
		}
		case 'messageBurst': {
			const messages =
				listedBurst(key, listed) ?? (await readBurst(context, key.firstId, key.lastId, requests));
			return messages && { event: 'messageBurst', key, messages };
		}
		case 'messageEdited': {
			const found = await message(key.id);
			return (
				found && {
					event: 'messageEdited',
					key,
					message: found,
					after: { message: found.message ?? '' },
				}
			);
		}
		default: {
			const found = await message(key.id);
			return found && { event: key.kind, key, message: found };
		}
	}
}

/** The decisions of `keys` to emit again, in order; `listed`: the messages listing found again, by id. */
export async function readAgain(
	context: RequestContext,
	keys: DeliveryKey[],
	logger: Logger,
	requests: RequestOptions = {},
	listed: Map<string, TriggerMessage> = new Map(),
): Promise<Decision[]> {
	const decisions: Decision[] = [];
	for (const key of keys) {
		const decision = await readDecision(context, key, requests, listed);
		if (decision) decisions.push(decision);
		else
			logger.warn(
				`Messaging Trigger: what ${keyText(key)} names is gone; it is not delivered again`,
			);
	}
	return decisions;
}
