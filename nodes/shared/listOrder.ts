/**
 * The order of a service's list, read from its messages: the way most adjacent pairs go, so one late or
 * bridged message does not turn it. Pure.
 */
import type { ListOrder } from './paginate';

/** A listed record as far as its order goes: a message, or any record Get Many's filters read. */
type Dated = { created_at: number };

/** How many adjacent pairs of a listing go up and down in created_at (equal pairs show nothing). */
export interface OrderEvidence {
	rising: number;
	falling: number;
}

/** The evidence of `page`, continuing after `previousLast`, added to `evidence`. */
export function countOrder(
	page: Dated[],
	previousLast?: Dated,
	evidence: OrderEvidence = { rising: 0, falling: 0 },
): OrderEvidence {
	let { rising, falling } = evidence;
	let before = previousLast;
	for (const message of page) {
		if (before && message.created_at > before.created_at) rising++;
		if (before && message.created_at < before.created_at) falling++;
		before = message;
	}
	return { rising, falling };
}

/**
 * The order a listing shows: the way most of its adjacent pairs go. A late or bridged message turns one
 * or two pairs the other way, never most of them. Undefined while neither way leads.
 */
export function orderShown(evidence: OrderEvidence): ListOrder | undefined {
	if (evidence.falling > evidence.rising) return 'newest_first';
	if (evidence.rising > evidence.falling) return 'oldest_first';
	return undefined;
}

/** Pairs going one way a listing must show, three in four of all its unequal pairs, to show its order clearly. */
export const CLEAR_ORDER_PAIRS = 4;

/**
 * Whether a listing shows its order clearly enough to be remembered, or to overturn the order
 * remembered: a listing of two or three messages, one of them late, can show the wrong one, and a
 * wrong order stops the trigger (a newest-first list read from an oldest-first cursor ends at once).
 */
export function showsOrderClearly(evidence: OrderEvidence): boolean {
	const major = Math.max(evidence.rising, evidence.falling);
	const minor = Math.min(evidence.rising, evidence.falling);
	return major >= CLEAR_ORDER_PAIRS && major >= 3 * minor;
}

/** The order after a listing: the stored one unless the listing clearly shows the other, else what it shows. */
export function orderAfter(
	stored: ListOrder | undefined,
	evidence: OrderEvidence,
): ListOrder | undefined {
	const shown = orderShown(evidence);
	if (!stored || !shown || shown === stored) return stored ?? shown;
	return showsOrderClearly(evidence) ? shown : stored;
}

/**
 * Whether the early stop may apply: the stored order is not oldest first, and most of this check's
 * adjacent pairs do not say otherwise (one late message at the top does not turn it off).
 */
export function mayStopEarly(stored: ListOrder | undefined, evidence: OrderEvidence): boolean {
	return stored !== 'oldest_first' && orderShown(evidence) !== 'oldest_first';
}
