/**
 * The trigger's stored state, its types in one place: what both versions keep in the node's static data
 * between checks (`state`) and the records it is made of. The watermark's rules are in watermark.ts.
 */
import { idText } from '../shared/ids';
import type { ListOrder } from '../shared/paginate';
import { timestampValue, type TimestampUnit } from '../shared/timestamps';

export interface TriggerMessage {
	id: string;
	created_at: number;
	[key: string]: unknown;
}

export type { ListOrder };

/** A message of the watch window as a check saw it (Message Edited and reactions). */
export interface WatchedMessage {
	id: string;
	createdAt: number;
	updatedAt: number | null;
	/** Hash of the whole text, and its start: at most WATCHED_TEXT_CHARS characters, whole ones (events/watch.ts). */
	hash: string;
	text: string;
	/** `<name>\n<reactor>` pairs, sorted. */
	reactions: string[];
}

export interface WatchState {
	messages: WatchedMessage[];
}

export interface TriggerState {
	version: 1;
	/** Every message created at or before it counts as delivered (or older than the activation). */
	settledThrough: number | null;
	/** The newest created_at seen, not ahead of the local clock. */
	newest: number | null;
	/** The ids (with their created_at) of the latest delivered messages, near the watermark. */
	recent: Array<[id: string, createdAt: number]>;
	/** The authenticated user's contact, once learned from a conversation (see ownContact.ts). */
	ownContactId?: string;
	/** The service's timestamp unit, once known: never guessed again from an empty page. */
	unit?: TimestampUnit;
	/** The service's list order, once a page showed it. */
	order?: ListOrder;
	/** Oldest-first services: the id listing starts after (the newest settled message seen). */
	cursor?: string;
	/**
	 * A newest-first backlog deeper than one check is read in segments from the top down, then emitted
	 * segment by segment from the bottom up: `resume` holds the cursor of each segment below the top
	 * one (deepest last), `stopAt` the id where the segment being read ends (everything below it is
	 * delivered).
	 */
	resume?: string[];
	stopAt?: string;
	/**
	 * A trigger on one conversation that read the account's listing (accountPage.ts): the ids (with their
	 * created_at, oldest first) at its top then, where its next read of it may stop.
	 */
	accountSeen?: Array<[id: string, createdAt: number]>;
	/** First activation on an oldest-first history longer than one check: messages up to here existed before. */
	existingThrough?: number;
	/** New Conversation: the conversations' own watermark, kept by the same rules as the messages'. */
	conversations?: TriggerState;
	/** Message Edited and reactions: the watch window as the last check saw it. */
	watch?: WatchState;
	/** Group Bursts: new messages accepted and not delivered yet, one array per open burst. */
	bursts?: TriggerMessage[][];
}

export function isTriggerState(value: unknown): value is TriggerState {
	const state = value as TriggerState | undefined;
	return !!state && state.version === 1 && Array.isArray(state.recent);
}

/** An empty state: nothing delivered yet, every message is new. */
export function emptyState(): TriggerState {
	return { version: 1, settledThrough: null, newest: null, recent: [] };
}

/**
 * A listed record as a trigger message: the id as a string, created_at as a number (a numeric string
 * is read as one). Undefined for a record without an id or a readable created_at.
 */
export function toTriggerMessage(record: unknown): TriggerMessage | undefined {
	if (!record || typeof record !== 'object') return undefined;
	const raw = record as Record<string, unknown>;
	const id = idText(raw.id);
	if (id === undefined) return undefined;
	const createdAt = timestampValue(raw.created_at);
	if (createdAt === undefined) return undefined;
	return { ...raw, id, created_at: createdAt };
}

/** A page's records as the trigger reads them: those without an id or a readable created_at left out. */
export function triggerMessagesOf(records: unknown[]): TriggerMessage[] {
	return records.map(toTriggerMessage).filter((m): m is TriggerMessage => !!m);
}
