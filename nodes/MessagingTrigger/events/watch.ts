/**
 * Message Edited, Reaction Added, Reaction Removed: the newest messages of each check (the watch
 * window) compared with how the previous check saw them. Pure. The spec has no "updated since"
 * filter, so a change to a message older than the window is not seen.
 */
import { idText, sentByOneOf } from '../../shared/ids';
import { cutText } from '../../shared/lines';
import { timestampValue } from '../../shared/timestamps';
import type { Decision } from '../decisions';
import { shortHash } from '../shortHash';
import type { TriggerMessage, WatchedMessage, WatchState } from '../triggerState';

/** Text kept per watched message for an edit's `before` (the hash still sees a change past it). */
export const WATCHED_TEXT_CHARS = 1_000;

export type ChangeKind = 'messageEdited' | 'reactionAdded' | 'reactionRemoved';

/** A change seen in the watch window: an edit, or one reaction of one person added or removed. */
export type Change = Extract<Decision, { event: ChangeKind }>;

function textOf(message: TriggerMessage): string {
	return typeof message.message === 'string' ? message.message : '';
}

function reactorText(reactor: unknown): string | undefined {
	if (reactor && typeof reactor === 'object') {
		const record = reactor as Record<string, unknown>;
		return idText(record.id) ?? idText(record.username);
	}
	return idText(reactor);
}

/** A message's reactions as sorted `<name>\n<reactor>` pairs: an array of `{name: [reactors]}` objects, or one such object. */
export function reactionPairs(reactions: unknown): string[] {
	const maps = Array.isArray(reactions) ? reactions : reactions ? [reactions] : [];
	const pairs = new Set<string>();
	for (const map of maps) {
		if (!map || typeof map !== 'object') continue;
		for (const [name, reactors] of Object.entries(map as Record<string, unknown>)) {
			for (const reactor of Array.isArray(reactors) ? reactors : [reactors]) {
				const who = reactorText(reactor);
				if (who !== undefined) pairs.add(`${name}\n${who}`);
			}
		}
	}
	return [...pairs].sort();
}

export function watched(message: TriggerMessage): WatchedMessage {
	const text = textOf(message);
	const updatedAt = timestampValue(message.updated_at);
	return {
		id: message.id,
		createdAt: message.created_at,
		updatedAt: updatedAt ?? null,
		hash: shortHash(text),
		text: cutText(text, WATCHED_TEXT_CHARS),
		reactions: reactionPairs(message.reactions),
	};
}

export interface WatchSettings {
	kinds: Set<ChangeKind>;
	/** The account's own contact: its edits and reactions are not changes to report. */
	own?: string;
	/** Whether a message is new since the previous check (its reactions are then all new). */
	isNewMessage: (message: TriggerMessage) => boolean;
}

/**
 * The changes between `previous` and the messages now in the window, and the window to remember. A
 * message seen for the first time reports nothing, unless it was sent since the previous check (then
 * its reactions are new since it was sent).
 */
export function watchChanges(
	previous: WatchState | undefined,
	window: TriggerMessage[],
	settings: WatchSettings,
): { changes: Change[]; next: WatchState } {
	const before = new Map(previous?.messages.map((m) => [m.id, m]));
	const changes: Change[] = [];
	const ownMessage = (m: TriggerMessage) => !!settings.own && sentByOneOf(m, [settings.own]);
	const sorted = [...window].sort((a, b) => a.created_at - b.created_at);
	for (const message of sorted) {
		const now = watched(message);
		let then = before.get(message.id);
		if (!then) {
			if (!previous || !settings.isNewMessage(message)) continue;
			then = { ...now, reactions: [] };
		}
		// The text decides: a service may keep updated_at within one second, or move it for a reaction.
		const edited = now.hash !== then.hash;
		if (edited && settings.kinds.has('messageEdited') && !ownMessage(message)) {
			changes.push({
				event: 'messageEdited',
				key: { kind: 'messageEdited', id: message.id, updatedAt: now.updatedAt },
				message,
				before: {
					message: then.text,
					// The kept start is the whole text when its hash is the whole text's.
					...(shortHash(then.text) !== then.hash ? { truncated: true as const } : {}),
				},
				after: { message: textOf(message) },
			});
		}
		const had = new Set(then.reactions);
		const has = new Set(now.reactions);
		const diff = (
			kind: 'reactionAdded' | 'reactionRemoved',
			from: string[],
			other: Set<string>,
		) => {
			if (!settings.kinds.has(kind)) return;
			for (const pair of from) {
				if (other.has(pair)) continue;
				const [reaction, reactor] = pair.split('\n');
				if (settings.own && reactor === settings.own) continue;
				changes.push({ event: kind, key: { kind, id: message.id, reaction, reactor }, message });
			}
		};
		diff('reactionAdded', now.reactions, had);
		diff('reactionRemoved', then.reactions, has);
	}
	return { changes, next: { messages: sorted.map(watched) } };
}
