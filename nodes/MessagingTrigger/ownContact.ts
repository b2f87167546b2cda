/**
 * "Skip My Own Messages": who the credential's account is, so an auto-reply never answers itself.
 * Given on the credential ("Your Contact ID"), remembered in the state, or learned without asking the
 * user: in a one-to-one conversation, the sender who is not the conversation's other contact is the
 * account of the credential. Learned before planning (events/check.ts); plan.ts leaves the account's
 * own messages, edits and reactions out.
 */

import { idText, senderOf, sentByOneOf } from '../shared/ids';
import { messagingApiRequest, type RequestContext, type RequestOptions } from '../shared/transport';
import type { TriggerMessage } from './triggerState';

/** Conversations looked up per check at most, to learn the own contact. */
const OWN_CONTACT_LOOKUPS_PER_CHECK = 3;
/** Conversations whose other contact an activation remembers at most. */
const CONVERSATIONS_KEPT = 1_000;

/**
 * The other contact of conversations looked up (undefined: a group), by conversation id. Kept by an
 * activation, so a conversation whose messages never tell the account is looked up once, not at every check.
 */
export type KnownConversations = Map<string, string | undefined>;

/** Whether the account sent `message` (see sentByOneOf: ids compared as text). */
export function sentBy(message: TriggerMessage, own: string): boolean {
	return sentByOneOf(message, [own]);
}

export async function learnOwnContact(
	this: RequestContext,
	messages: TriggerMessage[],
	requests: RequestOptions = {},
	known: KnownConversations = new Map(),
): Promise<string | undefined> {
	const byConversation = new Map<string, TriggerMessage[]>();
	for (const m of messages) {
		const conversationId = idText(m.conversation_id);
		if (conversationId === undefined) continue;
		byConversation.set(conversationId, [...(byConversation.get(conversationId) ?? []), m]);
	}
	let lookups = 0;
	for (const [conversationId, list] of byConversation) {
		if (!known.has(conversationId)) {
			if (lookups++ >= OWN_CONTACT_LOOKUPS_PER_CHECK) break;
			const conversation = await messagingApiRequest.call(
				this,
				{ method: 'GET', path: ['conversations', conversationId] },
				requests,
			);
			if (known.size >= CONVERSATIONS_KEPT) known.clear();
			known.set(
				conversationId,
				conversation.group_id ? undefined : idText(conversation.contact_id),
			);
		}
		const otherContact = known.get(conversationId);
		if (otherContact === undefined) continue;
		for (const m of list) {
			const senderId = senderOf(m).id;
			if (senderId !== undefined && senderId !== otherContact) return senderId;
		}
	}
	return undefined;
}
