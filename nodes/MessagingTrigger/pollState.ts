/**
 * The Messaging Trigger's memory, pure: which listed messages are new, in what order to emit them,
 * and what to remember for the next poll. No I/O here, so every rule is tested alone.
 *
 * The stored state is a watermark plus the ids near it:
 * - every message created at or before `settledThrough` counts as already delivered (or as older than
 *   the activation), so it is never emitted;
 * - `recent` holds the ids (with their created_at) of delivered messages created after `settledThrough`,
 *   so messages sharing a timestamp, and late arrivals inside the look-back window, are emitted exactly once;
 * - `settledThrough` trails the newest created_at seen by the look-back window, and `newest` never runs
 *   ahead of the local clock, so a future-dated message cannot freeze the trigger (it stays in `recent`,
 *   so it is not emitted again either).
 * `recent` is bounded by `maxRecentIds`, apart from the one timestamp group at the top (those ids must be
 * kept, or they would be emitted again).
 */

export interface TriggerMessage {
	id: string;
	created_at: number;
	[key: string]: unknown;
}

export interface TriggerState {
	version: 1;
	settledThrough: number | null;
	newest: number | null;
	recent: Array<[id: string, createdAt: number]>;
	/** The authenticated user's contact, once learned from a conversation (see the trigger). */
	ownContactId?: string;
}

export interface PollSettings {
	/** Now, in the service's timestamp unit. */
	now: number;
	/** Look-back window for late arrivals, in the service's unit. */
	lookBack: number;
	maxRecentIds: number;
}

export function isTriggerState(value: unknown): value is TriggerState {
	const state = value as TriggerState | undefined;
	return !!state && state.version === 1 && Array.isArray(state.recent);
}

/** Oldest first: by created_at, then by id. */
export function compareMessages(a: TriggerMessage, b: TriggerMessage): number {
	return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Whether a listed message is still unknown to `state` (null state: nothing is known). */
export function isNew(state: TriggerState | null, message: TriggerMessage, recentIds?: Set<string>): boolean {
	if (!state) return true;
	if (state.settledThrough !== null && message.created_at <= state.settledThrough) return false;
	return !(recentIds ?? new Set(state.recent.map(([id]) => id))).has(message.id);
}

/**
 * Given what a poll listed, the messages to emit (oldest first) and the state to store afterwards.
 * `state` null means the first poll: it records where the stream stands and, unless `emitExisting`,
 * emits nothing.
 */
export function advance(
	state: TriggerState | null,
	listed: TriggerMessage[],
	settings: PollSettings,
	emitExisting = false,
): { emit: TriggerMessage[]; next: TriggerState } {
	const recentIds = new Set(state?.recent.map(([id]) => id) ?? []);
	const unique = new Map<string, TriggerMessage>();
	for (const message of listed) {
		if (Number.isFinite(message.created_at) && !unique.has(message.id)) unique.set(message.id, message);
	}
	const fresh = [...unique.values()].filter((m) => isNew(state, m, recentIds)).sort(compareMessages);
	const emit = state || emitExisting ? fresh : [];

	let newest = state?.newest ?? null;
	for (const message of unique.values()) {
		const createdAt = Math.min(message.created_at, settings.now);
		if (newest === null || createdAt > newest) newest = createdAt;
	}
	let settledThrough = state?.settledThrough ?? null;
	if (newest !== null) {
		const trailing = newest - settings.lookBack;
		if (settledThrough === null || trailing > settledThrough) settledThrough = trailing;
	}

	const remembered = new Map<string, number>(state?.recent ?? []);
	for (const message of fresh) remembered.set(message.id, message.created_at);
	let recent = [...remembered].filter(([, at]) => settledThrough === null || at > settledThrough);
	recent.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));

	// Over the bound: settle whole timestamp groups from the oldest, never the newest group.
	if (recent.length > settings.maxRecentIds) {
		const newestAt = recent[recent.length - 1][1];
		let cut = 0;
		while (recent.length - cut > settings.maxRecentIds && recent[cut][1] < newestAt) {
			const groupAt = recent[cut][1];
			while (cut < recent.length && recent[cut][1] === groupAt) cut++;
			settledThrough = groupAt;
		}
		recent = recent.slice(cut);
	}

	return {
		emit,
		next: {
			version: 1,
			settledThrough,
			newest,
			recent,
			...(state?.ownContactId ? { ownContactId: state.ownContactId } : {}),
		},
	};
}

/**
 * Whether paging may stop after this page: the listing has been newest first so far, and the page
 * reaches down to messages that are all settled already.
 */
export function reachedKnownHistory(state: TriggerState | null, page: TriggerMessage[], newestFirstSoFar: boolean): boolean {
	if (!state || state.settledThrough === null || !newestFirstSoFar || page.length === 0) return false;
	return page[page.length - 1].created_at <= state.settledThrough;
}

/** Whether a page (continuing after `previousLast`) lists newest first. */
export function isNewestFirst(page: TriggerMessage[], previousLast?: TriggerMessage): boolean {
	let before = previousLast;
	for (const message of page) {
		if (before && message.created_at > before.created_at) return false;
		before = message;
	}
	return true;
}
