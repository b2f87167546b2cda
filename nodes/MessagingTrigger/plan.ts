/**
 * The trigger's plan, pure: from the stored state and what a check listed, the decisions (what to
 * deliver, as data) and the one next state to store. Nothing here reads the network, writes the state or
 * builds an item: the items are built from the decisions at emit (deliveryItems.ts). Each event is a
 * small step of `plan`.
 */
import { sentByOneOf } from '../shared/ids';
import type { Decision } from './decisions';
import { burstKey, groupBursts } from './events/bursts';
import { watchesMessages, type EventSettings } from './events/settings';
import { watchChanges, type ChangeKind } from './events/watch';
import type { Listing } from './listing';
import { planMessages, type MessagePlanSettings } from './planMessages';
import { inUnit } from './serviceClock';
import type { TriggerMessage, TriggerState } from './triggerState';
import { isNew } from './watermark';

/** What one check read: the messages, and for the events that need them the conversations and the watch window. */
export interface CheckListing {
	messages: Listing;
	/** New Conversation: the conversations listed from the state's `conversations`. */
	conversations?: Listing;
	/** Message Edited, reactions: the newest messages. */
	window?: TriggerMessage[];
}

export interface PlanSettings extends MessagePlanSettings {
	events: EventSettings;
	skipOwnMessages: boolean;
	/** The account's own contact when known before planning: the credential's, the state's or one learned. */
	own?: string;
	/** Whether `own` is the credential's (then it is not stored). */
	ownConfigured?: boolean;
	/** Deliveries one check may add at most (undefined: no limit); what does not fit waits. */
	room?: number;
}

export interface Plan {
	/** What to deliver, in order: one event each. */
	decisions: Decision[];
	nextState: TriggerState;
	/** Why the listing may be incomplete (its new messages' items carry it as a warning). */
	gap?: string;
	/** New messages a check may learn the own contact from (before Skip My Own Messages). */
	ownCandidates: TriggerMessage[];
}

/** The whole check, pure: the decisions, in order, and the one state to store with them. */
export function plan(
	state: TriggerState | null,
	listing: CheckListing,
	settings: PlanSettings,
): Plan {
	const { events, room } = settings;
	const messagesPlan = planMessages(listing.messages, room, settings);
	const next = messagesPlan.next;
	const own = settings.skipOwnMessages ? settings.own : undefined;
	if (own && !settings.ownConfigured && messagesPlan.emit.length > 0) next.ownContactId = own;
	const newMessages = own
		? messagesPlan.emit.filter((m) => !sentByOneOf(m, [own]))
		: messagesPlan.emit;
	const decisions: Decision[] = [];
	let left = room === undefined ? Infinity : room;
	const wanted = new Set(events.events);

	if (events.bursts || state?.bursts?.length) {
		const { unit, now } = listing.messages.clock;
		// Group Bursts turned off: what it held goes out now.
		const times = events.bursts
			? {
					quiet: inUnit(events.bursts.quietSeconds, unit),
					maxWait: inUnit(events.bursts.maxWaitSeconds, unit),
				}
			: { quiet: 0, maxWait: 0 };
		const grouped = groupBursts(state?.bursts ?? [], newMessages, { now, ...times });
		for (const burst of grouped.due)
			decisions.push({ event: 'messageBurst', key: burstKey(burst), messages: burst });
		if (grouped.held.length > 0) next.bursts = grouped.held;
		else delete next.bursts;
	} else if (wanted.has('newMessage')) {
		for (const message of newMessages)
			decisions.push({ event: 'newMessage', key: message.id, message });
	}
	left -= decisions.length;

	if (wanted.has('newConversation') && listing.conversations) {
		// What does not fit stays unknown to the conversations' state and is listed again.
		const conversations = planMessages(
			listing.conversations,
			Number.isFinite(left) ? Math.max(0, left) : undefined,
			{ ...settings, emitExisting: false },
		);
		next.conversations = conversations.next;
		for (const conversation of conversations.emit)
			decisions.push({
				event: 'newConversation',
				key: { kind: 'newConversation', id: conversation.id },
				conversation,
			});
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
			decisions.push(...watch.changes);
		}
	} else if (!watchesMessages(events)) delete next.watch;

	return {
		decisions,
		nextState: next,
		gap: messagesPlan.gap,
		ownCandidates: messagesPlan.emit,
	};
}
