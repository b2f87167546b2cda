/**
 * Group Bursts: messages of one conversation from one sender, each within the quiet period of the one
 * before, held in the state and delivered as one when the sender has been quiet that long or the
 * maximum wait has passed. Pure.
 */
import { idText, senderOf } from '../../shared/ids';
import type { BurstKey } from '../decisions';
import type { TriggerMessage } from '../triggerState';

/** Messages one burst holds at most: the next one starts another. */
export const MAX_BURST_MESSAGES = 50;
/** Messages held over all open bursts at most: above it the oldest bursts are delivered at once. */
export const MAX_HELD_MESSAGES = 500;

export interface BurstTimes {
	/** Now, the quiet period and the maximum wait, in the service's timestamp unit. */
	now: number;
	quiet: number;
	maxWait: number;
}

function burstOf(message: TriggerMessage): string {
	const sender = senderOf(message);
	return `${idText(message.conversation_id) ?? ''}\n${sender.id ?? sender.username ?? ''}`;
}

/**
 * `held` (the open bursts) with `fresh` (new messages, oldest first) added: the bursts due now, oldest
 * first, and those still open.
 */
export function groupBursts(
	held: TriggerMessage[][],
	fresh: TriggerMessage[],
	times: BurstTimes,
): { due: TriggerMessage[][]; held: TriggerMessage[][] } {
	const due: TriggerMessage[][] = [];
	const open = new Map<string, TriggerMessage[]>();
	for (const burst of held) open.set(burstOf(burst[0]), [...burst]);
	for (const message of fresh) {
		const key = burstOf(message);
		const burst = open.get(key);
		const last = burst?.[burst.length - 1];
		if (
			burst &&
			last &&
			message.created_at - last.created_at <= times.quiet &&
			message.created_at - burst[0].created_at <= times.maxWait &&
			burst.length < MAX_BURST_MESSAGES
		) {
			burst.push(message);
			continue;
		}
		if (burst) due.push(burst);
		open.set(key, [message]);
	}
	const still: TriggerMessage[][] = [];
	for (const burst of open.values()) {
		const last = burst.reduce((a, m) => Math.max(a, m.created_at), burst[0].created_at);
		const quietFor = times.now - last;
		const waited = times.now - burst[0].created_at;
		if (quietFor >= times.quiet || waited >= times.maxWait) due.push(burst);
		else still.push(burst);
	}
	still.sort((a, b) => a[0].created_at - b[0].created_at);
	let heldCount = still.reduce((n, b) => n + b.length, 0);
	while (heldCount > MAX_HELD_MESSAGES) {
		const oldest = still.shift()!;
		heldCount -= oldest.length;
		due.push(oldest);
	}
	due.sort((a, b) => a[0].created_at - b[0].created_at);
	return { due, held: still };
}

export function burstKey(burst: TriggerMessage[]): BurstKey {
	return { kind: 'messageBurst', firstId: burst[0].id, lastId: burst[burst.length - 1].id };
}
