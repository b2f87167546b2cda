/**
 * The trigger's plan, pure: from the stored state and what a check listed, the deliveries to emit and
 * the one next state to store. Nothing here reads the network or writes the state; each event is a
 * small step of `plan`.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { sentByOneOf } from '../shared/ids';
import { fromMilliseconds, type TimestampUnitSetting } from '../shared/timestamps';
import { burstKey, groupBursts } from './events/bursts';
import { onlyNewMessages, watchesMessages, type EventSettings } from './events/settings';
import { watchChanges, type ChangeKind } from './events/watch';
import type { Listing } from './listing';
import { orderAfter, orderShown } from '../shared/listOrder';
import {
	asRecord,
	burstItem,
	eventItem,
	gapWarning,
	messageItems,
	type MessageOutputSettings,
} from './output';
import {
	advance,
	emptyState,
	isNew,
	MAX_RECENT_IDS,
	oldestFirst,
	oldestFirstCursor,
	serviceUnit,
	type TriggerMessage,
	type TriggerState,
} from './pollState';

export interface PlanSettings {
	lookBackSeconds: number;
	emitExisting: boolean;
	unitSetting: TimestampUnitSetting;
	/** The local clock (ms), used where no answer carried the service's own time. */
	nowMs: number;
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
	settings: PlanSettings,
): MessagePlan {
	const { from: state, listed, evidence, finished, stalled, start, lastId } = listing;
	const recentIds = new Set(state?.recent.map(([id]) => id));
	const unit = serviceUnit(settings.unitSetting, state, listed);
	const inUnit = (seconds: number) => (unit === 'milliseconds' ? seconds * 1000 : seconds);
	// Now on the service's clock when its answer showed it elsewhere: its created_at are on that clock.
	const now = fromMilliseconds(listing.serviceTimeMs ?? settings.nowMs, unit ?? 'seconds');
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
	return { emit, next, gap };
}

/** What one check read: the messages, and for the events that need them the conversations and the watch window. */
export interface CheckListing {
	messages: Listing;
	/** New Conversation: the conversations listed from the state's `conversations`. */
	conversations?: Listing;
	/** Message Edited, reactions: the newest messages. */
	window?: TriggerMessage[];
}

export interface EventPlanSettings extends PlanSettings {
	events: EventSettings;
	skipOwnMessages: boolean;
	/** The account's own contact when known before planning: the credential's, the state's or one learned. */
	own?: string;
	/** Whether `own` is the credential's (then it is not stored). */
	ownConfigured?: boolean;
	output: MessageOutputSettings;
}

/** One delivery to emit: an opaque key the ledger records, the items of its execution and what they were made of. */
export interface PlannedDelivery {
	/** New Message: the message id. Others: `edited:<id>@<updated_at>`, `reaction+:<id>:<name>:<reactor>`, `conversation:<id>`, `burst:<firstId>..<lastId>`. */
	key: string;
	items: INodeExecutionData[];
	/** The records the items were made from (a message, or the item itself for other events). */
	messages: TriggerMessage[];
}

export interface Plan {
	deliveries: PlannedDelivery[];
	nextState: TriggerState;
	gap?: string;
	/** New messages a check may learn the own contact from (before Skip My Own Messages). */
	ownCandidates: TriggerMessage[];
}

/** Now in the service's unit and clock, as planMessages reads it. */
function serviceNow(listing: Listing, settings: PlanSettings): number {
	const unit = serviceUnit(settings.unitSetting, listing.from, listing.listed);
	return fromMilliseconds(listing.serviceTimeMs ?? settings.nowMs, unit ?? 'seconds');
}

function itemDelivery(key: string, item: INodeExecutionData): PlannedDelivery {
	return { key, items: [item], messages: [asRecord(key, item)] };
}

/**
 * The whole check, pure: the deliveries to emit, in order, and the one state to store with them.
 * `room`: deliveries one check may add at most (undefined: no limit); what does not fit waits.
 */
export function plan(
	state: TriggerState | null,
	listing: CheckListing,
	room: number | undefined,
	settings: EventPlanSettings,
): Plan {
	const { events, output } = settings;
	const messagesPlan = planMessages(listing.messages, room, settings);
	const next = messagesPlan.next;
	const own = settings.skipOwnMessages ? settings.own : undefined;
	if (own && !settings.ownConfigured && messagesPlan.emit.length > 0) next.ownContactId = own;
	const newMessages = own
		? messagesPlan.emit.filter((m) => !sentByOneOf(m, [own]))
		: messagesPlan.emit;
	const gap = gapWarning(messagesPlan.gap);
	const deliveries: PlannedDelivery[] = [];
	let left = room === undefined ? Infinity : room;
	const wanted = new Set(events.events);

	if (events.bursts || state?.bursts?.length) {
		const unit = serviceUnit(settings.unitSetting, listing.messages.from, listing.messages.listed);
		const inUnit = (seconds: number) => (unit === 'milliseconds' ? seconds * 1000 : seconds);
		// Group Bursts turned off: what it held goes out now.
		const times = events.bursts
			? { quiet: inUnit(events.bursts.quietSeconds), maxWait: inUnit(events.bursts.maxWaitSeconds) }
			: { quiet: 0, maxWait: 0 };
		const grouped = groupBursts(state?.bursts ?? [], newMessages, {
			now: serviceNow(listing.messages, settings),
			...times,
		});
		for (const burst of grouped.due)
			deliveries.push(itemDelivery(burstKey(burst), burstItem(burst, output, gap)));
		if (grouped.held.length > 0) next.bursts = grouped.held;
		else delete next.bursts;
	} else if (onlyNewMessages(events)) {
		for (const m of newMessages)
			deliveries.push({ key: m.id, items: messageItems([m], output, gap), messages: [m] });
	} else if (wanted.has('newMessage')) {
		for (const m of newMessages)
			deliveries.push(itemDelivery(m.id, eventItem('newMessage', { message: m }, output, gap)));
	}
	left -= deliveries.length;

	if (wanted.has('newConversation') && listing.conversations) {
		// What does not fit stays unknown to the conversations' state and is listed again.
		const conversations = planMessages(
			listing.conversations,
			Number.isFinite(left) ? Math.max(0, left) : undefined,
			{ ...settings, emitExisting: false },
		);
		next.conversations = conversations.next;
		for (const c of conversations.emit)
			deliveries.push(
				itemDelivery(
					`conversation:${c.id}`,
					eventItem('newConversation', { conversation: c }, output),
				),
			);
		left -= conversations.emit.length;
	} else if (!wanted.has('newConversation')) delete next.conversations;

	if (watchesMessages(events) && listing.window) {
		const kinds = new Set(
			events.events.filter((e): e is ChangeKind => e !== 'newMessage' && e !== 'newConversation'),
		);
		const before = listing.messages.from;
		const known = new Set(before?.recent.map(([id]) => id));
		const watch = watchChanges(state?.watch, listing.window, {
			kinds,
			own,
			isNewMessage: (m) => isNew(before, m, known),
		});
		if (watch.changes.length <= left) {
			next.watch = watch.next;
			for (const change of watch.changes) {
				const fields: IDataObject & { message: object } = { message: change.message };
				if (change.before) fields.before = change.before;
				if (change.after) fields.after = change.after;
				if (change.reaction !== undefined) fields.reaction = change.reaction;
				if (change.reactor !== undefined) fields.reactor = change.reactor;
				deliveries.push(itemDelivery(change.key, eventItem(change.kind, fields, output)));
			}
		}
	} else if (!watchesMessages(events)) delete next.watch;

	return {
		deliveries,
		nextState: next,
		gap: messagesPlan.gap,
		ownCandidates: messagesPlan.emit,
	};
}
