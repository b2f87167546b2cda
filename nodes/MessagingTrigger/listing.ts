/**
 * One check for new messages, for both node versions: list through the shared paginator from where
 * the state says, hand the listing to pollState's `advance`, and say what to emit and what to store.
 * Reads only; nothing here writes the stored state.
 */
import type { JsonObject } from 'n8n-workflow';

import { walkPages, type FetchPage } from '../shared/paginate';
import {
	fromMilliseconds,
	unitOfTimestamp,
	type TimestampUnit,
	type TimestampUnitSetting,
} from '../shared/timestamps';
import {
	advance,
	emptyState,
	isNew,
	isNewestFirst,
	listOrderOf,
	MAX_RECENT_IDS,
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

function isBadCursorError(error: unknown): boolean {
	const httpCode = (error as JsonObject | undefined)?.httpCode;
	return httpCode === '400' || httpCode === '404';
}

/**
 * Lists what is new since `state` and computes the next state. `state` null: the first check after
 * activation. `nowMs`: the local clock.
 */
export async function checkForNew(
	fetchPage: FetchPage,
	state: TriggerState | null,
	settings: ListingSettings,
	nowMs: number,
): Promise<CheckResult> {
	const start = state?.resume ?? (state?.order === 'oldest_first' ? state.cursor : undefined);
	if (start === undefined) return await walk(fetchPage, state, settings, nowMs, undefined);
	// The message a cursor names may have been deleted: read from the top once more instead of failing for ever.
	const restart = async (error: unknown) => {
		if (!isBadCursorError(error)) return await Promise.reject(error);
		const restarted = state ? { ...state, resume: undefined, cursor: undefined } : null;
		return await walk(fetchPage, restarted, settings, nowMs, undefined);
	};
	return await walk(fetchPage, state, settings, nowMs, start).catch(restart);
}

async function walk(
	fetchPage: FetchPage,
	state: TriggerState | null,
	settings: ListingSettings,
	nowMs: number,
	start: string | undefined,
): Promise<CheckResult> {
	const maxPages = settings.maxPages ?? MAX_PAGES_PER_CHECK;
	const listed: TriggerMessage[] = [];
	let newestFirst = state?.order !== 'oldest_first';
	let previousLast: TriggerMessage | undefined;
	let stopLine: Pick<TriggerState, 'settledThrough'> | null = state;
	let finished: 'complete' | 'capped' = 'capped';
	let gap: string | undefined;
	let pages = 0;
	let lastId: string | undefined;

	for await (const page of walkPages(fetchPage, { pageSize: settings.pageSize, cursor: start, maxPages })) {
		pages = page.pageNumber;
		const messages = page.records.map(toTriggerMessage).filter((m): m is TriggerMessage => !!m);
		listed.push(...messages);
		newestFirst &&= isNewestFirst(messages, previousLast);
		previousLast = messages[messages.length - 1] ?? previousLast;
		const last = page.records[page.records.length - 1]?.id;
		if (last !== undefined && last !== null) lastId = String(last);
		if (!state && !settings.emitExisting && newestFirst && listed.length > 0) {
			// First check: only the look-back window below the newest message matters.
			const unit = resolveUnit(settings.unitSetting, null, listed)!;
			const window = unit === 'milliseconds' ? settings.lookBackSeconds * 1000 : settings.lookBackSeconds;
			stopLine = { settledThrough: listed[0].created_at - window - 1 };
		}
		if (reachedKnownHistory(stopLine, messages, newestFirst)) {
			finished = 'complete';
			break;
		}
		if (!page.next) {
			finished = 'complete';
			if (page.stalled && messages.some((m) => isNew(state, m))) {
				gap = 'the service did not page further (it ignored the starting_after cursor).';
			}
			break;
		}
	}

	const unit = resolveUnit(settings.unitSetting, state, listed);
	const inUnit = (seconds: number) => (unit === 'milliseconds' ? seconds * 1000 : seconds);
	const now = fromMilliseconds(nowMs, unit ?? 'seconds');
	const order = state?.order ?? listOrderOf(listed);
	const base: TriggerState | null = state && { ...state, resume: undefined };

	if (finished === 'capped' && order !== 'oldest_first' && (state || settings.emitExisting)) {
		// A newest-first backlog deeper than one check: go on downwards next time, emit once the bottom is reached.
		const next: TriggerState = { ...(state ?? emptyState()), resume: lastId };
		if (unit) next.unit = unit;
		if (order) next.order = order;
		return { emit: [], next, pages };
	}

	const { emit, next } = advance(base, listed, {
		now,
		lookBack: inUnit(settings.lookBackSeconds),
		maxRecentIds: MAX_RECENT_IDS,
		emitExisting: settings.emitExisting,
	});
	if (unit) next.unit = unit;
	if (order) next.order = order;
	delete next.resume;
	if (order === 'oldest_first') {
		let cursor = oldestFirstCursor(listed, next.settledThrough, start);
		// A look-back window wider than one check must not hold the listing in place.
		if (finished === 'capped' && cursor === start) cursor = lastId;
		if (cursor === undefined) delete next.cursor;
		else next.cursor = cursor;
		if (finished === 'capped' && !state && !settings.emitExisting) next.existingThrough = now;
	}
	if (finished === 'complete') delete next.existingThrough;
	return { emit, next, gap, pages };
}

/**
 * The newest message, for "Fetch Test Event": the first page when the service lists newest first,
 * else the walk to the end (up to one check's page cap). The stored state is neither read nor written.
 */
export async function fetchNewest(
	fetchPage: FetchPage,
	pageSize: number,
): Promise<TriggerMessage | undefined> {
	let newest: TriggerMessage | undefined;
	let previousLast: TriggerMessage | undefined;
	for await (const page of walkPages(fetchPage, { pageSize, maxPages: MAX_PAGES_PER_CHECK })) {
		const messages = page.records.map(toTriggerMessage).filter((m): m is TriggerMessage => !!m);
		for (const m of messages) if (!newest || m.created_at > newest.created_at) newest = m;
		if (isNewestFirst(messages, previousLast)) break;
		previousLast = messages[messages.length - 1] ?? previousLast;
	}
	return newest;
}
