/**
 * Recovery by listing, pure: what bounds a delivery's messages (recorded with it in the ledger), the
 * listings that find the messages of lost deliveries again after a restart, where each listing ends, and
 * the decisions a key gets from what was listed. The walks are listAgain.ts's; a key they do not find is
 * read by itself (readAgain.ts), as every key was before.
 */
import { idText, senderOf } from '../../shared/ids';
import type { ListOrder } from '../../shared/paginate';
import type { BurstKey, Decision, DeliveryKey } from '../decisions';
import type { TriggerMessage, TriggerState } from '../triggerState';

/** Where a delivery's messages are, recorded when it is first emitted. */
export interface DeliveryBounds {
	/** The oldest and the newest created_at of its messages, in the service's unit. */
	oldest: number;
	newest: number;
	/** Their conversations; absent when there are more than MAX_BOUND_CONVERSATIONS (or one is unknown). */
	conversations?: string[];
	/** The id the check's listing started after, when it did not start from the top (oldest-first services). */
	after?: string;
}

/** Conversations a delivery records at most: beyond that it is found again in the unfiltered listing. */
export const MAX_BOUND_CONVERSATIONS = 10;

function messagesOf(decision: Decision): TriggerMessage[] {
	if (decision.event === 'newConversation') return [];
	return decision.event === 'messageBurst' ? decision.messages : [decision.message];
}

/** The bounds of one delivery's decisions; undefined when none names a message (New Conversation only). */
export function boundsOf(decisions: Decision[], after?: string): DeliveryBounds | undefined {
	const messages = decisions.flatMap(messagesOf);
	if (messages.length === 0) return undefined;
	const times = messages.map((m) => m.created_at);
	const ids = messages.map((m) => idText(m.conversation_id));
	const conversations = [...new Set(ids)].sort();
	const bounds: DeliveryBounds = { oldest: Math.min(...times), newest: Math.max(...times) };
	if (conversations.length <= MAX_BOUND_CONVERSATIONS && !ids.includes(undefined))
		bounds.conversations = conversations as string[];
	if (after !== undefined) bounds.after = after;
	return bounds;
}

/** Where a check's listing started: the cursor of a service not known to list newest first. */
export function listedAfter(state: TriggerState | null): string | undefined {
	return state?.order !== 'newest_first' ? state?.cursor : undefined;
}

/** New deliveries (made from `decisions` in order, keys.length each) with their bounds. */
export function withBounds<D extends { keys: DeliveryKey[]; bounds?: DeliveryBounds }>(
	deliveries: D[],
	decisions: Decision[],
	state: TriggerState | null,
): D[] {
	let at = 0;
	return deliveries.map((delivery) => {
		const bounds = boundsOf(decisions.slice(at, (at += delivery.keys.length)), listedAfter(state));
		return bounds ? { ...delivery, bounds } : delivery;
	});
}

/** The ids of the messages a key needs from a listing (a burst: its first and last). */
export function wantedIds(key: DeliveryKey): string[] {
	if (typeof key === 'string') return [key];
	if (key.kind === 'newConversation') return [];
	return key.kind === 'messageBurst' ? [key.firstId, key.lastId] : [key.id];
}

/** One listing of messages that finds lost deliveries' messages again. */
export interface RecoveryWalk {
	/** Only this conversation's messages; undefined: the trigger's own listing. */
	conversationId?: string;
	/** The id to start after (oldest first, or order unknown); undefined: from the top. */
	after?: string;
	/** Undefined: unknown, so the walk goes on until it has found every message it wants. */
	order?: ListOrder;
	/** Newest first: the oldest created_at to reach; otherwise the newest. */
	bound: number;
	wanted: Set<string>;
}

export interface WalkSettings {
	/** The service's order as the trigger's state knows it. */
	order?: ListOrder;
	pageSize: number;
	/** The trigger lists one conversation itself. */
	filtered: boolean;
}

type Lost = { keys: DeliveryKey[]; bounds?: DeliveryBounds };

/**
 * The walks for `lost` (oldest first) that recorded bounds. Newest first: from the top down to the
 * oldest bound, per conversation when the messages are in no more conversations than the unfiltered
 * listing needs pages at least (each conversation then costs about a page, and none of the others is
 * read), else unfiltered. Otherwise as the trigger lists: one walk from where the oldest delivery's
 * listing started, up to the newest bound (order unknown: until every message is found).
 */
export function recoveryWalks(lost: Lost[], settings: WalkSettings): RecoveryWalk[] {
	const bounded = lost.filter(
		(d): d is Required<Lost> => !!d.bounds && d.keys.some((k) => wantedIds(k).length > 0),
	);
	if (bounded.length === 0) return [];
	const idsOf = (ds: Lost[]) => new Set(ds.flatMap((d) => d.keys.flatMap(wantedIds)));
	const wanted = idsOf(bounded);
	if (settings.order !== 'newest_first') {
		const bound = Math.max(...bounded.map((d) => d.bounds.newest));
		return [{ order: settings.order, after: bounded[0].bounds.after, bound, wanted }];
	}
	const oldest = (ds: Array<Required<Lost>>) => Math.min(...ds.map((d) => d.bounds.oldest));
	const conversations = new Set(bounded.flatMap((d) => d.bounds.conversations ?? []));
	const everyKnown = bounded.every((d) => d.bounds.conversations !== undefined);
	const fewEnough = conversations.size <= Math.ceil(wanted.size / settings.pageSize);
	if (settings.filtered || !everyKnown || !fewEnough)
		return [{ order: 'newest_first', bound: oldest(bounded), wanted }];
	return [...conversations].map((conversationId) => {
		const touching = bounded.filter((d) => d.bounds.conversations?.includes(conversationId));
		return {
			order: 'newest_first',
			conversationId,
			bound: oldest(touching),
			wanted: idsOf(touching),
		};
	});
}

/**
 * Whether a walk ends after `page` (its messages in list order): it went past its bound (every message
 * beyond it), or it found every message it wants and reached its bound (order unknown: found them all).
 */
export function walkEnds(walk: RecoveryWalk, page: TriggerMessage[], foundAll: boolean): boolean {
	if (page.length === 0 || walk.order === undefined) return foundAll;
	const beyond = (at: number) =>
		walk.order === 'newest_first' ? at < walk.bound : at > walk.bound;
	const reached = (at: number) => at === walk.bound || beyond(at);
	return (
		page.every((m) => beyond(m.created_at)) ||
		(foundAll && reached(page[page.length - 1].created_at))
	);
}

/**
 * Which listed messages to keep: those wanted, and for a burst the messages around it (its messages
 * between the first and the last are found in the listing too).
 */
export function keepsListed(lost: Lost[]): (message: TriggerMessage) => boolean {
	const wanted = new Set(lost.flatMap((d) => d.keys.flatMap(wantedIds)));
	const ranges = lost.flatMap((d) =>
		d.bounds && d.keys.some((k) => typeof k !== 'string' && k.kind === 'messageBurst')
			? [d.bounds]
			: [],
	);
	return (m) =>
		wanted.has(m.id) || ranges.some((r) => m.created_at >= r.oldest && m.created_at <= r.newest);
}

/**
 * A burst's messages: its first and last, and those of the same sender between them in its
 * conversation, oldest first. `candidates` must hold every message listed between the two.
 */
export function burstMessages(
	first: TriggerMessage,
	last: TriggerMessage,
	candidates: Iterable<TriggerMessage>,
): TriggerMessage[] {
	const sender = senderOf(first).id;
	const conversation = idText(first.conversation_id);
	const between = new Map<string, TriggerMessage>([
		[first.id, first],
		[last.id, last],
	]);
	for (const m of candidates) {
		if (m.created_at < first.created_at || m.created_at > last.created_at) continue;
		if (idText(m.conversation_id) === conversation && senderOf(m).id === sender)
			between.set(m.id, m);
	}
	return [...between.values()].sort((a, b) => a.created_at - b.created_at);
}

/** A burst from a listing that found both its ends; undefined otherwise. */
export function listedBurst(
	key: BurstKey,
	listed: Map<string, TriggerMessage>,
): TriggerMessage[] | undefined {
	const first = listed.get(key.firstId);
	const last = listed.get(key.lastId);
	return first && last ? burstMessages(first, last, listed.values()) : undefined;
}
