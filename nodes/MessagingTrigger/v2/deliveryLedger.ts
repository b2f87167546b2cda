/**
 * Version 2's deliveries, pure: what was emitted and whose execution has not finished yet ("in
 * flight"), what must be emitted again, and how an execution's end decides between the two. Stored in
 * the trigger's static data next to the watermark, written before each emit, so a crash at any moment
 * leaves a state in which every event is either not yet listed, or in flight (and emitted again), or
 * finished.
 *
 * A delivery is one execution's events. Each attempt has its own deduplication key, so n8n never
 * starts two executions for one attempt, while a lost attempt can be emitted again.
 */
import { keyText, type DeliveryKey } from '../decisions';
import type { DeliveryBounds } from '../events/recoveryPlan';
import { shortHash } from '../shortHash';

export interface Delivery {
	/** Stable for all attempts of this delivery. */
	id: string;
	/** The keys of the events delivered, oldest first (for New Message: the message id). */
	keys: DeliveryKey[];
	/** The attempt last emitted (1 for the first delivery). */
	attempt: number;
	/** Local clock (ms) when the first attempt was emitted. */
	firstEmittedAt: number;
	/**
	 * Lost with the process that emitted it, which may have died before n8n created the execution: the
	 * attempt is emitted again under its own key, and counts only once n8n says its execution existed.
	 */
	lostWithProcess?: true;
	/** Why its last attempt is emitted again (set when it was lost). */
	lostBecause?: LostBecause;
	/** Where its messages are, so a restart finds them by listing (absent in ledgers of earlier builds: read one by one). */
	bounds?: DeliveryBounds;
}

/**
 * Why a delivery is emitted again, as its items say (`redeliveryReason`):
 * - `previousAttemptFailed`: n8n said the last attempt's execution crashed, was cancelled by a shutdown
 *   or never started: it did not finish.
 * - `previousOutcomeUnknown`: n8n restarted while the last attempt was in flight and keeps no end a
 *   trigger can read: its execution may have finished.
 */
export type LostBecause = 'previousAttemptFailed' | 'previousOutcomeUnknown';

/** Version 2: keys as data. Version 1 (keys as text, `ids`) is read by ledgerV1.ts. */
export interface Ledger {
	version: 2;
	/** Emitted; waiting for their executions to finish. */
	inFlight: Delivery[];
	/** Their last attempt was lost (crash, never started, lost with a restart): emitted again at the next check. */
	redeliver: Delivery[];
}

/** Attempts per delivery, the first one included; after the last one is lost the messages are reported. */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** Events in flight at most: above this, a check lists nothing new until executions finish. */
export const MAX_IN_FLIGHT_EVENTS = 1_000;

/** Events per delivery (one execution) at most. */
export const MAX_EVENTS_PER_DELIVERY = 100;

export function emptyLedger(): Ledger {
	return { version: 2, inFlight: [], redeliver: [] };
}

export function isLedger(value: unknown): value is Ledger {
	const ledger = value as Ledger | undefined;
	return (
		!!ledger &&
		ledger.version === 2 &&
		Array.isArray(ledger.inFlight) &&
		Array.isArray(ledger.redeliver)
	);
}

/** Events (keys) emitted and not finished, waiting or to be emitted again. */
export function eventsInFlight(ledger: Ledger): number {
	let count = 0;
	for (const delivery of [...ledger.inFlight, ...ledger.redeliver]) count += delivery.keys.length;
	return count;
}

/** n8n's deduplication key of one attempt: unique across workflows, nodes, deliveries and attempts. */
export function deduplicationKey(
	scope: { workflowId: string; nodeId: string },
	delivery: Pick<Delivery, 'id' | 'attempt'>,
): string {
	return `messaging-trigger:${scope.workflowId}:${scope.nodeId}:${delivery.id}:${delivery.attempt}`;
}

/** New deliveries for the events of a check (oldest first), at most `perDelivery` events each. */
export function newDeliveries(
	keys: DeliveryKey[],
	now: number,
	perDelivery = MAX_EVENTS_PER_DELIVERY,
): Delivery[] {
	const deliveries: Delivery[] = [];
	for (let at = 0; at < keys.length; at += perDelivery) {
		const chunk = keys.slice(at, at + perDelivery);
		const id = `${now.toString(36)}-${shortHash(chunk.map(keyText).join('\n'))}`;
		deliveries.push({ id, keys: chunk, attempt: 1, firstEmittedAt: now });
	}
	return deliveries;
}

export function addInFlight(ledger: Ledger, deliveries: Delivery[]): Ledger {
	return { ...ledger, inFlight: [...ledger.inFlight, ...deliveries] };
}

/** The execution of `deliveryId` ended for good (succeeded, or failed by the workflow's own error): forget it. */
export function markFinished(ledger: Ledger, deliveryId: string): Ledger {
	return {
		...ledger,
		inFlight: ledger.inFlight.filter((d) => d.id !== deliveryId),
		redeliver: ledger.redeliver.filter((d) => d.id !== deliveryId),
	};
}

/** The attempt in flight was lost: emit it again. Attempts that are no longer in flight are ignored. */
export function markLost(
	ledger: Ledger,
	deliveryId: string,
	attempt: number,
	because: LostBecause,
): Ledger {
	const lost = ledger.inFlight.find((d) => d.id === deliveryId && d.attempt === attempt);
	if (!lost) return ledger;
	return {
		...ledger,
		inFlight: ledger.inFlight.filter((d) => d !== lost),
		redeliver: [...ledger.redeliver, { ...lost, lostBecause: because }],
	};
}

/**
 * After a restart: every delivery in flight whose execution this process does not know is lost with
 * the process that emitted it.
 */
export function recoverAfterRestart(
	ledger: Ledger,
	knownHere: (delivery: Delivery) => boolean,
): Ledger {
	const lost = ledger.inFlight.filter((d) => !knownHere(d));
	if (lost.length === 0) return ledger;
	return {
		...ledger,
		inFlight: ledger.inFlight.filter((d) => knownHere(d)),
		redeliver: [
			...ledger.redeliver,
			...lost.map(
				(d): Delivery => ({
					...d,
					lostWithProcess: true,
					lostBecause: 'previousOutcomeUnknown',
				}),
			),
		],
	};
}

/**
 * The next attempts of the deliveries to emit again, oldest first, and those whose attempts are
 * spent (to be reported, never retried again). A delivery lost with its process repeats its attempt:
 * n8n may have died before creating that execution (a kill within milliseconds of the emit), and
 * repeated crashes must not spend attempts that never ran.
 */
export function nextAttempts(
	ledger: Ledger,
	maxAttempts = MAX_DELIVERY_ATTEMPTS,
): { retry: Delivery[]; exhausted: Delivery[] } {
	const retry: Delivery[] = [];
	const exhausted: Delivery[] = [];
	const ordered = [...ledger.redeliver].sort((a, b) => a.firstEmittedAt - b.firstEmittedAt);
	for (const delivery of ordered) {
		if (delivery.lostWithProcess) {
			const sameAttempt = { ...delivery };
			delete sameAttempt.lostWithProcess;
			retry.push(sameAttempt);
		} else if (delivery.attempt >= maxAttempts) exhausted.push(delivery);
		else retry.push({ ...delivery, attempt: delivery.attempt + 1 });
	}
	return { retry, exhausted };
}

/** The ledger once `retry` are emitted and `exhausted` reported. */
export function afterRedelivery(ledger: Ledger, retry: Delivery[], exhausted: Delivery[]): Ledger {
	const done = new Set([...retry, ...exhausted].map((d) => d.id));
	return {
		...ledger,
		inFlight: [...ledger.inFlight, ...retry.filter((d) => d.keys.length > 0)],
		redeliver: ledger.redeliver.filter((d) => !done.has(d.id)),
	};
}
