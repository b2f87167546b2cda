/**
 * One check's listing, for both node versions: walks the shared paginator's pages from where the state
 * says, down to the known history, and hands what it read, with the service's clock, to plan.ts. Reads
 * only; decides nothing and writes nothing.
 */
import { idText } from '../shared/ids';
import { walkPages, type PageFetcher } from '../shared/paginate';
import type { TimestampUnitSetting } from '../shared/timestamps';
import { countOrder, mayStopEarly, type OrderEvidence } from '../shared/listOrder';
import { clockAt, firstServiceTime, inUnit, serviceUnit, type ServiceClock } from './serviceClock';
import { triggerMessagesOf, type TriggerMessage, type TriggerState } from './triggerState';
import { reachedKnownHistory } from './watermark';

/** Pages one trigger check reads at most; a larger backlog continues at the next check. */
export const MAX_TRIGGER_PAGES_PER_CHECK = 200;

export interface ListingSettings {
	pageSize: number;
	lookBackSeconds: number;
	emitExisting: boolean;
	unitSetting: TimestampUnitSetting;
	/** The local clock (ms), used where no answer carried the service's own time. */
	nowMs: number;
	maxPages?: number;
	/**
	 * Whether a message still exists: asked when an oldest-first listing from the cursor comes back
	 * empty, to tell a deleted cursor from deleted messages after it. Without it, the cursor is gone.
	 */
	messageExists?: (id: string) => Promise<boolean>;
}

/**
 * The message a cursor names is gone: an oldest-first listing from it came back empty (it always has a
 * message after it), or the service refused it below the first page of the account's listing.
 */
export class CursorGone extends Error {}

/** The HTTP status of a failed request (the transport's error shape). */
export function statusOf(error: unknown): string | undefined {
	return (error as { httpCode?: string } | undefined)?.httpCode;
}

/** A cursor the service refused (400, 404) or that listed nothing: listing starts again from the top. */
export function isBadCursorError(error: unknown): boolean {
	if (error instanceof CursorGone) return true;
	const status = statusOf(error);
	return status === '400' || status === '404';
}

/** Where this check starts reading: the deepest pending segment, else an oldest-first cursor, else the top. */
function startOf(state: TriggerState | null): string | undefined {
	const segments = state?.resume ?? [];
	if (segments.length > 0) return segments[segments.length - 1];
	return state?.order !== 'newest_first' ? state?.cursor : undefined;
}

/**
 * What one check read, before anything is decided: the messages in the service's order, the order they
 * showed, and where the walk ended. `from` is the state the walk started from (the stored one, or with
 * its cursors dropped when the cursor turned out to be gone).
 */
export interface Listing {
	from: TriggerState | null;
	listed: TriggerMessage[];
	evidence: OrderEvidence;
	finished: 'complete' | 'capped';
	/** The service said it had nothing after the last page read. */
	exhausted: boolean;
	stalled: boolean;
	pages: number;
	/** Where the walk started, and the id of the last record it read. */
	start?: string;
	lastId?: string;
	/** The service's time at its first answer, when it said it. */
	serviceTimeMs?: number;
	/** The service's unit and now, read once for the whole check. */
	clock: ServiceClock;
	/** The top of the account's listing, when the check read it (TriggerState.accountSeen). */
	accountSeen?: TriggerState['accountSeen'];
}

/**
 * Lists what may be new since `state`: walks pages from where the state says, and no further than the
 * known history. Reads only; what is new and what to store is plan.ts's.
 */
export async function listSince(
	fetchPage: PageFetcher,
	state: TriggerState | null,
	settings: ListingSettings,
): Promise<Listing> {
	const start = startOf(state);
	if (start === undefined) return await walk(fetchPage, state, settings);
	// The message a cursor names may have been deleted: read from the top once more instead of failing for ever.
	const restart = async (error: unknown) => {
		if (!isBadCursorError(error)) return await Promise.reject(error);
		const restarted = state && {
			...state,
			resume: undefined,
			stopAt: undefined,
			cursor: undefined,
		};
		return await walk(fetchPage, restarted, settings);
	};
	return await walk(fetchPage, state, settings).catch(restart);
}

async function walk(
	servicePage: PageFetcher,
	state: TriggerState | null,
	settings: ListingSettings,
): Promise<Listing> {
	const { fetchPage, serviceTimeMs: timeOfService } = firstServiceTime(servicePage);
	const maxPages = settings.maxPages ?? MAX_TRIGGER_PAGES_PER_CHECK;
	const start = startOf(state);
	const listed: TriggerMessage[] = [];
	let evidence: OrderEvidence = { rising: 0, falling: 0 };
	let newestFirst = false;
	let previousLast: TriggerMessage | undefined;
	let stopLine: Pick<TriggerState, 'settledThrough' | 'recent'> | null = state;
	const recentIds = new Set(state?.recent.map(([id]) => id));
	let finished: 'complete' | 'capped' = 'capped';
	let exhausted = false;
	let stalled = false;
	let pages = 0;
	let lastId: string | undefined;
	let recordsRead = 0;
	// Known before the first page when the credential sets it or the state remembers it; else the first message shows it.
	let unit = serviceUnit(settings.unitSetting, state, []);

	for await (const page of walkPages(fetchPage, {
		pageSize: settings.pageSize,
		cursor: start,
		maxPages,
	})) {
		pages = page.pageNumber;
		recordsRead += page.records.length;
		let messages = triggerMessagesOf(page.records);
		const stopAt =
			state?.stopAt === undefined ? -1 : messages.findIndex((m) => m.id === state.stopAt);
		if (stopAt >= 0) messages = messages.slice(0, stopAt + 1);
		listed.push(...messages);
		evidence = countOrder(messages, previousLast, evidence);
		newestFirst = mayStopEarly(state?.order, evidence);
		previousLast = messages[messages.length - 1] ?? previousLast;
		lastId = idText(page.records[page.records.length - 1]?.id) ?? lastId;
		unit ??= serviceUnit(settings.unitSetting, state, listed);
		if (!state && !settings.emitExisting && newestFirst && listed.length > 0) {
			// First check: only the look-back window below the newest message matters.
			const window = inUnit(settings.lookBackSeconds, unit);
			stopLine = { settledThrough: listed[0].created_at - window - 1, recent: [] };
		}
		if (
			stopAt >= 0 ||
			(stopLine !== null && reachedKnownHistory(stopLine, messages, newestFirst, recentIds)) ||
			!page.next
		) {
			finished = 'complete';
			exhausted = !page.next;
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
	return {
		from: state,
		listed,
		evidence,
		finished,
		exhausted,
		stalled,
		pages,
		start,
		lastId,
		serviceTimeMs: timeOfService(),
		clock: clockAt(unit, timeOfService() ?? settings.nowMs),
	};
}
