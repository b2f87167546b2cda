/**
 * One check for new messages, for both node versions: list through the shared paginator from where
 * the state says, hand the listing to pollState's `advance`, and say what to emit and what to store.
 * Reads only; nothing here writes the stored state.
 */
import type { JsonObject } from 'n8n-workflow';

import { idText } from '../shared/ids';
import { walkPages, type PageFetcher as FetchPage } from '../shared/paginate';
import {
	fromMilliseconds,
	unitOfTimestamp,
	type TimestampUnit,
	type TimestampUnitSetting,
} from '../shared/timestamps';
import { countOrder, mayStopEarly, orderAfter, orderShown, type OrderEvidence } from './listOrder';
import {
	advance,
	emptyState,
	isNew,
	MAX_RECENT_IDS,
	oldestFirst,
	oldestFirstCursor,
	reachedKnownHistory,
	toTriggerMessage,
	type TriggerMessage,
	type TriggerState,
} from './pollState';

/** Pages one check reads at most; a larger backlog continues at the next check. */
export const MAX_PAGES_PER_CHECK = 200;

export interface ListingSettings {
	pageSize: number;
	lookBackSeconds: number;
	emitExisting: boolean;
	unitSetting: TimestampUnitSetting;
	maxPages?: number;
	/** New messages one check may emit at most; the others wait for the next check. */
	maxNew?: number;
	/**
	 * Whether a message still exists: asked when an oldest-first listing from the cursor comes back
	 * empty, to tell a deleted cursor from deleted messages after it. Without it, the cursor is gone.
	 */
	messageExists?: (id: string) => Promise<boolean>;
}

export interface CheckResult {
	/** New messages, oldest first. */
	emit: TriggerMessage[];
	/** The state to store once the check has succeeded. */
	next: TriggerState;
	/** Why the listing may be incomplete (the service ignored the cursor). */
	gap?: string;
	/** Requests made. */
	pages: number;
}

/** The service's unit: fixed by the credential, else remembered, else shown by a message; never guessed from nothing. */
export function resolveUnit(
	setting: TimestampUnitSetting,
	state: TriggerState | null,
	listed: TriggerMessage[],
): TimestampUnit | undefined {
	if (setting === 'seconds' || setting === 'milliseconds') return setting;
	if (state?.unit) return state.unit;
	return listed.length > 0 ? unitOfTimestamp(listed[0].created_at) : undefined;
}

/** An oldest-first listing from a cursor that came back empty: the cursor always has a message after it. */
class CursorGone extends Error {}

function isBadCursorError(error: unknown): boolean {
	if (error instanceof CursorGone) return true;
	const httpCode = (error as JsonObject | undefined)?.httpCode;
	return httpCode === '400' || httpCode === '404';
}

/** Where this check starts reading: the deepest pending segment, else an oldest-first cursor, else the top. */
function startOf(state: TriggerState | null): string | undefined {
	const segments = state?.resume ?? [];
	if (segments.length > 0) return segments[segments.length - 1];
	return state?.order !== 'newest_first' ? state?.cursor : undefined;
}

/**
 * Lists what is new since `state` and computes the next state. `state` null: the first check after
 * activation. `nowMs`: the local clock, used where no answer carried the service's own time.
 */
export async function checkForNew(
	fetchPage: FetchPage,
	state: TriggerState | null,
	settings: ListingSettings,
	nowMs: number,
): Promise<CheckResult> {
	const start = startOf(state);
	if (start === undefined) return await walk(fetchPage, state, settings, nowMs);
	// The message a cursor names may have been deleted: read from the top once more instead of failing for ever.
	const restart = async (error: unknown) => {
		if (!isBadCursorError(error)) return await Promise.reject(error);
		const restarted = state && {
			...state,
			resume: undefined,
			stopAt: undefined,
			cursor: undefined,
		};
		return await walk(fetchPage, restarted, settings, nowMs);
	};
	return await walk(fetchPage, state, settings, nowMs).catch(restart);
}

async function walk(
	servicePage: FetchPage,
	state: TriggerState | null,
	settings: ListingSettings,
	nowMs: number,
): Promise<CheckResult> {
	// The service's time at its first answer: what existed at activation is told from what is new by it.
	let serviceTimeMs: number | undefined;
	const fetchPage: FetchPage = async (cursor, limit) => {
		const page = await servicePage(cursor, limit);
		serviceTimeMs ??= page.serviceTimeMs;
		return page;
	};
	const maxPages = settings.maxPages ?? MAX_PAGES_PER_CHECK;
	const start = startOf(state);
	const listed: TriggerMessage[] = [];
	let evidence: OrderEvidence = { rising: 0, falling: 0 };
	let newestFirst = false;
	let previousLast: TriggerMessage | undefined;
	let stopLine: Pick<TriggerState, 'settledThrough' | 'recent'> | null = state;
	const recentIds = new Set(state?.recent.map(([id]) => id));
	let finished: 'complete' | 'capped' = 'capped';
	let stalled = false;
	let pages = 0;
	let lastId: string | undefined;
	let recordsRead = 0;

	for await (const page of walkPages(fetchPage, {
		pageSize: settings.pageSize,
		cursor: start,
		maxPages,
	})) {
		pages = page.pageNumber;
		recordsRead += page.records.length;
		let messages = page.records.map(toTriggerMessage).filter((m): m is TriggerMessage => !!m);
		const stopAt =
			state?.stopAt === undefined ? -1 : messages.findIndex((m) => m.id === state.stopAt);
		if (stopAt >= 0) messages = messages.slice(0, stopAt + 1);
		listed.push(...messages);
		evidence = countOrder(messages, previousLast, evidence);
		newestFirst = mayStopEarly(state?.order, evidence);
		previousLast = messages[messages.length - 1] ?? previousLast;
		lastId = idText(page.records[page.records.length - 1]?.id) ?? lastId;
		if (!state && !settings.emitExisting && newestFirst && listed.length > 0) {
			// First check: only the look-back window below the newest message matters.
			const unit = resolveUnit(settings.unitSetting, null, listed)!;
			const window =
				unit === 'milliseconds' ? settings.lookBackSeconds * 1000 : settings.lookBackSeconds;
			stopLine = { settledThrough: listed[0].created_at - window - 1, recent: [] };
		}
		if (
			stopAt >= 0 ||
			(stopLine !== null && reachedKnownHistory(stopLine, messages, newestFirst, recentIds)) ||
			!page.next
		) {
			finished = 'complete';
			stalled = page.stalled;
			break;
		}
	}

	if (
		start !== undefined &&
		start === state?.cursor &&
		!state.resume?.length &&
		pages === 1 &&
		finished === 'complete' &&
		!stalled &&
		recordsRead === 0
	) {
		// The message after the cursor was seen at the last check: the cursor is gone, or every message
		// after it (one sent and unsent): only the first makes the listing start again from the top.
		if (!(await settings.messageExists?.(start))) throw new CursorGone();
	}
	const unit = resolveUnit(settings.unitSetting, state, listed);
	const inUnit = (seconds: number) => (unit === 'milliseconds' ? seconds * 1000 : seconds);
	// Now on the service's clock when its answer showed it elsewhere: its created_at are on that clock.
	const now = fromMilliseconds(serviceTimeMs ?? nowMs, unit ?? 'seconds');
	// The order most adjacent pairs show; once stored, overturned only by a listing that clearly shows
	// the other (not while a newest-first backlog is read in segments).
	const order =
		state?.resume || state?.stopAt
			? (state.order ?? orderShown(evidence))
			: orderAfter(state?.order, evidence);
	if (stalled && state && order === 'oldest_first' && !listed.some((m) => isNew(state, m))) {
		// Every check would read the same oldest page for ever and deliver nothing: say so, every check.
		throw new Error(
			'The Messaging service ignored the starting_after cursor: it lists oldest first, so messages after its first page cannot be reached and none was delivered',
		);
	}
	const segments = state?.resume ?? [];
	const known = (next: TriggerState) => {
		if (unit) next.unit = unit;
		if (order) next.order = order;
		// A cursor belongs to an oldest-first listing: one that turned out newest first reads from the top.
		if (order === 'newest_first') delete next.cursor;
		return next;
	};

	if (finished === 'capped' && order !== 'oldest_first' && (state || settings.emitExisting)) {
		// A newest-first backlog deeper than one check: read on downwards next time, emit from the bottom up.
		const next = known({ ...(state ?? emptyState()), resume: [...segments, lastId!] });
		return { emit: [], next, pages };
	}

	// Over `maxNew`: emit the oldest new ones; the rest stay unknown to the state and are read again.
	let accepted = listed;
	let truncated = false;
	if (settings.maxNew !== undefined) {
		const fresh = oldestFirst(
			listed.filter((m) => isNew(state, m, recentIds)),
			order,
		);
		if (fresh.length > settings.maxNew && (state || settings.emitExisting)) {
			const excess = new Set(fresh.slice(settings.maxNew).map((m) => m.id));
			accepted = listed.filter((m) => !excess.has(m.id));
			truncated = true;
		}
	}

	const { emit, next } = advance(state, accepted, {
		now,
		lookBack: inUnit(settings.lookBackSeconds),
		maxRecentIds: MAX_RECENT_IDS,
		emitExisting: settings.emitExisting,
		order,
	});
	known(next);
	if (truncated) {
		// Part of what was read waits: read the same place again next time.
		if (state?.resume) next.resume = state.resume;
		else delete next.resume;
		if (state?.stopAt !== undefined) next.stopAt = state.stopAt;
		else delete next.stopAt;
	} else if (segments.length > 0) {
		// This segment is delivered: the one above it ends where this one started.
		next.resume = segments.slice(0, -1);
		next.stopAt = segments[segments.length - 1];
		if (next.resume.length === 0) delete next.resume;
	} else {
		delete next.resume;
		delete next.stopAt;
	}
	if (order !== 'newest_first' && !(segments.length > 0)) {
		let cursor = oldestFirstCursor(accepted, next.settledThrough, start);
		// A look-back window wider than one check must not hold the listing in place.
		if (finished === 'capped' && cursor === start && !truncated) cursor = lastId;
		if (cursor === undefined) delete next.cursor;
		else next.cursor = cursor;
		// A first check that could not read the whole history: what it has not read yet existed already.
		// On the service's clock when it says its time: on ours, a service whose clock runs behind would
		// have its first new messages taken for old ones (and one ahead, old ones for new).
		if (finished === 'capped' && !state && !settings.emitExisting) {
			next.existingThrough = now - 1;
		}
	}
	if (finished === 'complete' && !truncated) delete next.existingThrough;
	const gap =
		stalled && state && listed.some((m) => isNew(state, m))
			? 'the service did not page further (it ignored the starting_after cursor).'
			: undefined;
	return { emit, next, gap, pages };
}
