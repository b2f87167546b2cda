/**
 * The watermark, pure: which listed messages are new, in what order to emit them, and what to remember
 * for the next check (the state's types are in triggerState.ts). No I/O here, so every rule is tested alone.
 *
 * The stored state is a watermark plus the ids near it:
 * - every message created at or before `settledThrough` counts as already delivered (or as older than
 *   the activation), so it is never emitted;
 * - `recent` holds the ids (with their created_at) of the latest delivered messages, so messages sharing
 *   a timestamp, late arrivals inside the look-back window and messages whose created_at changes after
 *   delivery are emitted exactly once;
 * - `settledThrough` stays strictly below the newest created_at seen minus the look-back window, so a
 *   message sharing the newest timestamp is never settled unseen (a look-back of 0 is safe);
 * - `newest` is the newest created_at not ahead of the local clock, so a future-dated message cannot
 *   freeze the trigger (it stays in `recent`, so it is not emitted again either).
 * `recent` is bounded by `maxRecentIds`, apart from the one timestamp group at the top (those ids must be
 * kept, or they would be emitted again).
 *
 * Where listing resumes is part of the state too: `cursor` (a service listing oldest first is read from
 * the last settled message on) and `resume` (a newest-first backlog larger than one check's page cap is
 * read downwards across checks, then emitted oldest first).
 */
import type { ListOrder, TriggerMessage, TriggerState } from './triggerState';
import { emptyState } from './triggerState';

export interface AdvanceSettings {
	/** Now, in the service's timestamp unit. */
	now: number;
	/** Look-back window for late arrivals, in the service's unit. */
	lookBack: number;
	maxRecentIds: number;
	/** The first check emits the messages that already exist. */
	emitExisting?: boolean;
	/** The service's list order: messages sharing a created_at are emitted in it. */
	order?: ListOrder;
}

export const MAX_RECENT_IDS = 500;

/** Ids in their natural order: as numbers when both are whole numbers (`9` before `10`), else as text. */
function compareIds(a: string, b: string): number {
	if (/^\d+$/.test(a) && /^\d+$/.test(b) && a.length !== b.length) return a.length - b.length;
	return a < b ? -1 : a > b ? 1 : 0;
}

/** Oldest first: by created_at, then by id in natural order (only while the list order is unknown). */
export function compareMessages(a: TriggerMessage, b: TriggerMessage): number {
	return a.created_at - b.created_at || compareIds(a.id, b.id);
}

/**
 * Messages in the order to emit them, oldest first: by created_at, and among messages sharing one by
 * the service's own list position (the only order a UUID has), reversed for a newest-first listing.
 * While the order is unknown (every listed created_at equal), the ids decide.
 */
export function oldestFirst(
	listed: TriggerMessage[],
	order: ListOrder | undefined,
): TriggerMessage[] {
	if (order === undefined) return [...listed].sort(compareMessages);
	const inListOrder = order === 'newest_first' ? [...listed].reverse() : [...listed];
	return inListOrder.sort((a, b) => a.created_at - b.created_at); // stable: ties keep their list position
}

/** Whether a listed message is still unknown to `state` (null state: nothing is known). */
export function isNew(
	state: TriggerState | null,
	message: TriggerMessage,
	recentIds?: Set<string>,
): boolean {
	if (!state) return true;
	if (state.settledThrough !== null && message.created_at <= state.settledThrough) return false;
	return !(recentIds ?? new Set(state.recent.map(([id]) => id))).has(message.id);
}

/**
 * Given what a check listed (in the service's order), the messages to emit (oldest first) and the
 * state to store afterwards.
 * `state` null means the first check: it records where the stream stands and, unless `emitExisting`,
 * emits nothing. Fields of `state` this function does not own (cursor, unit, …) are carried over.
 */
export function advance(
	state: TriggerState | null,
	listed: TriggerMessage[],
	settings: AdvanceSettings,
): { emit: TriggerMessage[]; next: TriggerState } {
	const recentIds = new Set(state?.recent.map(([id]) => id) ?? []);
	const unique = new Map<string, TriggerMessage>();
	for (const message of listed) {
		if (Number.isFinite(message.created_at) && !unique.has(message.id))
			unique.set(message.id, message);
	}
	const fresh = oldestFirst(
		[...unique.values()].filter((m) => isNew(state, m, recentIds)),
		settings.order,
	);
	const existingThrough = state?.existingThrough;
	const emit = !state
		? settings.emitExisting
			? fresh
			: []
		: settings.emitExisting || existingThrough === undefined
			? fresh
			: fresh.filter((m) => m.created_at > existingThrough);

	// A message dated after the local clock does not move the watermark: were it moved there, a service
	// whose clock runs behind would see its next messages settled unseen.
	let newest = state?.newest ?? null;
	for (const message of unique.values()) {
		if (message.created_at > settings.now) continue;
		if (newest === null || message.created_at > newest) newest = message.created_at;
	}
	let settledThrough = state?.settledThrough ?? null;
	if (newest !== null) {
		const trailing = newest - settings.lookBack - 1;
		if (settledThrough === null || trailing > settledThrough) settledThrough = trailing;
	}

	const remembered = new Map<string, number>(state?.recent ?? []);
	for (const message of fresh) remembered.set(message.id, message.created_at);
	let recent = [...remembered];
	recent.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));

	// Over the bound: forget whole timestamp groups from the oldest, never the newest group. A group
	// above the watermark can only be forgotten by settling it.
	if (recent.length > settings.maxRecentIds) {
		const newestAt = recent[recent.length - 1][1];
		let cut = 0;
		while (recent.length - cut > settings.maxRecentIds && recent[cut][1] < newestAt) {
			const groupAt = recent[cut][1];
			while (cut < recent.length && recent[cut][1] === groupAt) cut++;
			if (settledThrough === null || groupAt > settledThrough) settledThrough = groupAt;
		}
		recent = recent.slice(cut);
	}

	const next: TriggerState = {
		...(state ?? emptyState()),
		version: 1,
		settledThrough,
		newest,
		recent,
	};
	return { emit, next };
}

/**
 * Whether paging may stop after this page: the listing has been newest first so far, and the page ends
 * on a settled message and holds one the state knows. A service sorted by created_at lists only
 * settled messages below a settled one. A service sorted by insertion lists below a message what was
 * inserted before it, which an earlier check listed if it knew that message; a settled message it
 * never saw (one later than the look-back window) may sit above messages inserted since, so paging
 * goes on past it, down to a page older than anything remembered at most. A late message inside the
 * window is above the stop either way: by created_at it sorts above the settled ones, by insertion it
 * is at the top.
 */
export function reachedKnownHistory(
	state: Pick<TriggerState, 'settledThrough'> & { recent?: TriggerState['recent'] },
	page: TriggerMessage[],
	newestFirstSoFar: boolean,
	recentIds: Set<string> = new Set(state.recent?.map(([id]) => id)),
): boolean {
	if (state.settledThrough === null || !newestFirstSoFar || page.length === 0) return false;
	if (page[page.length - 1].created_at > state.settledThrough) return false;
	const oldestRemembered = state.recent?.[0]?.[1];
	if (oldestRemembered === undefined) return true;
	return (
		page.some((m) => recentIds.has(m.id)) || page.every((m) => m.created_at < oldestRemembered)
	);
}

/**
 * For an oldest-first service: the id the next check starts after, the last listed message that is
 * settled (so late arrivals inside the look-back window are read again) and is not the last one listed:
 * a listing from the cursor then always holds a message already seen, so an empty one says the cursor
 * is gone (a service may answer a deleted cursor with an empty page). Keeps `previous` when none is.
 */
export function oldestFirstCursor(
	listed: TriggerMessage[],
	settledThrough: number | null,
	previous: string | undefined,
): string | undefined {
	if (settledThrough === null) return previous;
	let cursor = previous;
	for (const message of listed.slice(0, -1)) {
		if (message.created_at <= settledThrough) cursor = message.id;
		else break;
	}
	return cursor;
}
