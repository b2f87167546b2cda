/**
 * "Skip My Own Messages": who the credential's account is, so an auto-reply never answers itself.
 * Given on the credential ("Your Contact ID"), remembered in the state, or learned without asking the
 * user: in a one-to-one conversation, the sender who is not the conversation's other contact is the
 * account of the credential.
 */

import { idText, senderOf, sentByOneOf } from '../shared/ids';
import { messagingApiRequest, type RequestContext } from '../shared/transport';
import type { CheckResult } from './listing';
import type { TriggerMessage, TriggerState } from './pollState';

/** Conversations looked up per check at most, to learn the own contact. */
const OWN_CONTACT_LOOKUPS_PER_CHECK = 3;

/** Whether the account sent `message` (see sentByOneOf: ids compared as text). */
export function sentBy(message: TriggerMessage, own: string): boolean {
	return sentByOneOf(message, [own]);
}

export async function learnOwnContact(
	this: RequestContext,
	messages: TriggerMessage[],
): Promise<string | undefined> {
	const byConversation = new Map<string, TriggerMessage[]>();
	for (const m of messages) {
		const conversationId = idText(m.conversation_id);
		if (conversationId === undefined) continue;
		byConversation.set(conversationId, [...(byConversation.get(conversationId) ?? []), m]);
	}
	for (const [conversationId, list] of [...byConversation].slice(
		0,
		OWN_CONTACT_LOOKUPS_PER_CHECK,
	)) {
		const conversation = await messagingApiRequest.call(this, {
			method: 'GET',
			path: ['conversations', conversationId],
		});
		const otherContact = idText(conversation.contact_id);
		if (conversation.group_id || otherContact === undefined) continue;
		for (const m of list) {
			const senderId = senderOf(m).id;
			if (senderId !== undefined && senderId !== otherContact) return senderId;
		}
	}
	return undefined;
}

/**
 * The messages to deliver and the own contact to remember: `configured` (the credential's) wins,
 * then `remembered` (the state's), then one learned from these messages.
 */
export async function withoutOwnMessages(
	this: RequestContext,
	messages: TriggerMessage[],
	ids: { configured?: string; remembered?: string },
): Promise<{ messages: TriggerMessage[]; learned?: string }> {
	if (messages.length === 0) return { messages };
	const configured = ids.configured?.trim();
	const own = configured || ids.remembered || (await learnOwnContact.call(this, messages));
	if (!own) return { messages };
	return {
		messages: messages.filter((m) => !sentBy(m, own)),
		learned: configured ? undefined : own,
	};
}

/** A check's new messages less the account's own, and the state to store with a learned own contact. */
export async function messagesToDeliver(
	this: RequestContext,
	check: CheckResult,
	settings: { skipOwnMessages: boolean; configured?: string },
): Promise<{ delivered: TriggerMessage[]; next: TriggerState; gap?: string }> {
	const { emit, next, gap } = check;
	if (!settings.skipOwnMessages) return { delivered: emit, next, gap };
	const own = await withoutOwnMessages.call(this, emit, {
		configured: settings.configured,
		remembered: next.ownContactId,
	});
	return {
		delivered: own.messages,
		next: own.learned ? { ...next, ownContactId: own.learned } : next,
		gap,
	};
}
