/**
 * New messages, pure: from what one listing read and the state it started from, the messages to emit
 * (oldest first) and the next state of the watermark, with where the next check resumes reading. Used
 * for the messages, and for New Conversation's conversations by the same rules.
 */
import type { Listing } from './listing';
import { orderAfter, orderShown } from '../shared/listOrder';
import { inUnit } from './serviceClock';
import { emptyState, type TriggerMessage, type TriggerState } from './triggerState';
import { advance, isNew, MAX_RECENT_IDS, oldestFirst, oldestFirstCursor } from './watermark';

export interface MessagePlanSettings {
	lookBackSeconds: number;
	emitExisting: boolean;
}

export interface MessagePlan {
	/** New messages, oldest first. */
	emit: TriggerMessage[];
	/** The state to store once the check has succeeded. */
	next: TriggerState;
	/** Why the listing may be incomplete (the service ignored the cursor). */
	gap?: string;
}

/**
 * New messages: what `listing` holds that its state did not know, and where the next check resumes.
 * At most `room` new messages are taken (the oldest); the others stay unknown and are listed again.
 */
export function planMessages(
	listing: Listing,
	room: number | undefined,
	settings: MessagePlanSettings,
): MessagePlan {
	const { from: state, listed, evidence, finished, stalled, start, lastId } = listing;
	const recentIds = new Set(state?.recent.map(([id]) => id));
	// Now on the service's clock when its answer showed it elsewhere: its created_at are on that clock.
	const { unit, now } = listing.clock;
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
		return { emit: [], next };
	}

	// Over `room`: emit the oldest new ones; the rest stay unknown to the state and are read again.
	let accepted = listed;
	let truncated = false;
	if (room !== undefined) {
		const fresh = oldestFirst(
			listed.filter((m) => isNew(state, m, recentIds)),
			order,
		);
		if (fresh.length > room && (state || settings.emitExisting)) {
			const excess = new Set(fresh.slice(room).map((m) => m.id));
			accepted = listed.filter((m) => !excess.has(m.id));
			truncated = true;
		}
	}

	const { emit, next } = advance(state, accepted, {
		now,
		lookBack: inUnit(settings.lookBackSeconds, unit),
		maxRecentIds: MAX_RECENT_IDS,
		emitExisting: settings.emitExisting,
		order,
	});
	known(next);
	// Not over what waits (truncated): the next read of the account must reach it again.
	if (listing.accountSeen && !truncated) next.accountSeen = listing.accountSeen;
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
	return { emit, next, gap };
}
