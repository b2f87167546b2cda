import { AnnouncedLimits } from './announcedLimits';
import { InFlightGate } from './inFlight';
import { QuotaWaiters } from './quotaWaiters';
import { RunRefusal } from './runRefusal';
import { DEFAULT_RETRY } from './retry';
import { MAX_INTERVAL_MS, RateEstimate } from './rateEstimate';
import { MAX_RETRY_AFTER_MS, retryHintMs } from './retryAfter';
import type { Admitted, ResponseInfo, Turn } from './types';

/**
 * The pace shared by the concurrent requests of one node run. Pure: it only sees the clock it is given
 * (epoch milliseconds) and the answers it is told about, and says how long the next start waits
 * (takeTurn, resume) and when one more may be in flight (admit, settle). docs/pacing.md explains each
 * rule and what was measured; in short:
 *
 * - A service that never limits costs nothing: no spacing, no hold, every turn's wait is 0.
 * - Retry-After is when to retry the refused request, not the spacing: the pace is learned from the
 *   answers (RateEstimate), one decrease per 429 event, then growth and probes; at an event the starts
 *   pause about one round trip and one probe goes alone; a probe refused again meets a wall, and the
 *   pause doubles, never past the service's moment.
 * - A cap on requests in flight is not a rate (InFlightGate); its 429s are the cap's news.
 * - Rate-limit headers keep the run under the limit before any 429 (AnnouncedLimits, QuotaWaiters).
 * - A storm that does not clear ends the run (RunRefusal).
 * - Every wait is bounded (MAX_RETRY_AFTER_MS, MAX_INTERVAL_MS, MAX_HOLD_MS).
 */

/** Without Retry-After, a wall is assumed to stand this long, doubling per refused probe up to MAX_HOLD_MS. */
export const DEFAULT_HOLD_MS = 250;
/** The transport's longest backoff: a wall nobody names is probed at least this often. */
const MAX_HOLD_MS = DEFAULT_RETRY.maxDelayMs;
export { MAX_INTERVAL_MS };
/** Under a named window, a 429 slows the pace to no less than this share of the window's rate. */
const WINDOW_RATE_TRUSTED = 0.9;

export interface PacerOptions {
	/** Epoch milliseconds; Date.now by default. */
	now?: () => number;
}

/** What a request needs of the run's pace (a wrapper may add its own rules to its turns). */
export type RequestPace = Pick<
	Pacer,
	| 'takeTurn'
	| 'resume'
	| 'abandonTurn'
	| 'admit'
	| 'withdraw'
	| 'settle'
	| 'onResponse'
	| 'gaveUpRateLimited'
	| 'refusingRun'
>;

export class Pacer {
	private readonly now: () => number;
	private holdUntil = 0;
	/** When a 429 last paused the starts: a turn taken before is taken again (resume). */
	private pausedAt = -Infinity;
	private nextStart = 0;
	private readonly estimate = new RateEstimate();
	private eventsWithoutSuccess = 0;
	private latencyMs = 0;
	/** The fastest answer so far: no request of this run reaches the service's decision sooner. */
	private fastestMs = Infinity;
	private lastReservedStart = -Infinity;
	private readonly announcedLimits = new AnnouncedLimits();
	/** Whether the next start is a probe after an event's pause. */
	private probePending = false;
	private readonly quotaWaiters = new QuotaWaiters();
	private readonly refusal = new RunRefusal();

	private readonly gate: InFlightGate;

	constructor(options: PacerOptions = {}) {
		this.now = options.now ?? Date.now;
		this.gate = new InFlightGate(this.now);
	}

	/** Reserves the next start: the request waits `wait` ms, then asks resume() whether it still holds. */
	takeTurn(): Turn {
		this.quotaWaiters.returned();
		return this.reserve();
	}

	private reserve(): Turn {
		const now = this.now();
		this.estimate.recordStart(now);
		const start = this.announcedLimits.earliestStart(
			Math.max(now, this.holdUntil, this.nextStart),
			now,
			this.fastestMs,
		);
		this.announcedLimits.recordStart(start);
		this.lastReservedStart = start;
		if (this.probePending) {
			// The first start after a 429's hold goes alone: the next waits for its answer to be due.
			this.probePending = false;
			this.nextStart = start + Math.max(this.latencyMs, 1000 / this.estimate.rate);
		} else if (this.estimate.rate !== Infinity)
			this.nextStart = start + Math.min(MAX_INTERVAL_MS, 1000 / this.estimate.rate);
		return { wait: start - now, start, reservedAt: now };
	}

	/**
	 * After waiting a turn: the same turn with nothing left to wait, or a new one when a 429 paused the
	 * starts meanwhile (a turn taken at the old pace would meet the same limit; it goes behind the probe).
	 */
	resume(turn: Turn): Turn {
		if (this.pausedAt <= turn.reservedAt) return { ...turn, wait: 0 };
		this.giveUp(turn);
		return this.reserve();
	}

	/** A reserved start that will not happen: it no longer counts anywhere. */
	private giveUp(turn: Turn | undefined): void {
		if (turn) this.announcedLimits.forgetStart(turn.start);
		else this.announcedLimits.endReservation();
		this.estimate.forgetStart();
	}

	/**
	 * A turn given up before its request was admitted (its wait was cancelled): it no longer counts, and
	 * with nothing in flight a request waiting for an answer goes instead, as none will come.
	 */
	abandonTurn(turn?: Turn): void {
		this.giveUp(turn);
		this.releaseAwaitingQuota();
	}

	/**
	 * Calls `start` with the number of requests in flight (itself included) once one more may be in
	 * flight: at once, or when another settles. Every admitted request is settled exactly once. While the
	 * announced quota is spent, a request waits for an answer instead, then is told to take a new turn
	 * (`start(undefined)`): what that answer announced, and any pause since, applies to it. Such a request
	 * gets back the ms until the quota's reset: it takes a new turn then too (withdraw), answer or not.
	 * `turn`: the turn it waited, given up while it waits for the quota.
	 */
	admit(start: Admitted, turn?: Turn): number | undefined {
		const now = this.now();
		if (this.gate.busy && this.announcedLimits.freeStarts(now) < 1) {
			this.giveUp(turn); // its turn will be taken again
			this.quotaWaiters.wait(start);
			return this.announcedLimits.resetInMs(now);
		}
		this.gate.admit((inFlight) => {
			const sentAt = this.now();
			this.announcedLimits.recordSent(sentAt);
			start(inFlight, sentAt);
		});
		return undefined;
	}

	/**
	 * A request waiting for the quota stops waiting (the quota's reset passed, or its execution was
	 * cancelled); it takes a new turn. False when it was let go already.
	 */
	withdraw(start: Admitted): boolean {
		return this.quotaWaiters.withdraw(start);
	}

	/** An admitted request is over, answered or not: what its answer announced may free waiting ones. */
	settle(): void {
		this.gate.settle();
		this.announcedLimits.endReservation();
		this.releaseAwaitingQuota();
	}

	/**
	 * As the announced quota allows, less the places already promised (turns reserved and not sent, and
	 * requests let go that have not taken their new turn yet); with nothing in flight, no answer will
	 * come: one goes.
	 */
	private releaseAwaitingQuota(): void {
		const { retaking } = this.quotaWaiters;
		const promised = Math.max(0, this.announcedLimits.reserved - this.gate.admitted) + retaking;
		// Each takes a new turn, which still waits for any pause.
		this.quotaWaiters.release(
			this.gate.busy
				? this.announcedLimits.freeStarts(this.now()) - promised
				: Math.max(1 - retaking, 0),
		);
	}

	/** A request first sent at `firstSentAt` spent its retry budget on 429s (see RunRefusal). */
	gaveUpRateLimited(firstSentAt: number): void {
		this.refusal.gaveUp(firstSentAt);
	}

	/** Whether the service refused the whole run for a whole retry budget: its requests stop. */
	get refusingRun(): boolean {
		return this.refusal.active;
	}

	/** Every answer: success, 429 or any other status. */
	onResponse(info: ResponseInfo): void {
		const now = this.now();
		this.refusal.answered(info.status, now);
		const latency = Math.max(0, now - info.startedAt);
		this.latencyMs = this.latencyMs ? this.latencyMs * 0.9 + latency * 0.1 : latency;
		this.fastestMs = Math.min(this.fastestMs, latency);
		this.announcedLimits.read(info.headers, info.startedAt, now, info.status);
		if (info.inFlight !== undefined) this.gate.learn(info.status, info.startedAt, info.inFlight);
		if (info.status >= 500) return; // says nothing about the rate limit
		// Refused above the service's cap on requests in flight: the cap's news, not the rate's.
		const { cap } = this.gate;
		if (info.status === 429 && cap !== undefined && (info.inFlight ?? 0) > cap) return;
		const fresh = this.estimate.isFresh(info.startedAt);
		this.estimate.countAnswer(info.startedAt, info.status !== 429);
		if (info.status === 429) {
			if (!fresh) return; // started at the old pace: the same news as the event's, already acted on
			// Sent before the service first named its limits (a first wave): the limits it announced keep
			// the run under them from here on, and this says nothing of the pace.
			if (this.announcedLimits.sentBlind(info.startedAt, now)) return;
			const asked = Math.min(
				MAX_RETRY_AFTER_MS,
				retryHintMs(info.headers, info.body, now) ??
					Math.min(MAX_HOLD_MS, DEFAULT_HOLD_MS * 2 ** Math.max(0, this.eventsWithoutSuccess - 1)),
			);
			// The first refusal since a success is an event: the pace drops. A probe refused again, with no
			// success between, meets a wall (a spent window or quota): the pace stays, the pause grows.
			const wall = this.eventsWithoutSuccess > 0;
			// A named window keeps its own count of the starts: a 429 under it is a request counted a little
			// early, not a pace above the limit, so the pace never drops below most of what it allows.
			const floor = (this.announcedLimits.windowRate() ?? 0) * WINDOW_RATE_TRUSTED;
			if (!wall) this.estimate.slowDown(now, this.latencyMs, this.lastReservedStart, floor);
			this.eventsWithoutSuccess += 1;
			// Probes double their spacing while refused, never past the service's moment.
			const probeGap = this.briefHoldMs() * 2 ** (this.eventsWithoutSuccess - 1);
			this.holdUntil = Math.max(this.holdUntil, now + Math.min(asked, probeGap));
			// The turns given before the pause are taken again after it, behind the probe.
			this.pausedAt = now;
			this.nextStart = 0;
			this.probePending = true;
			this.estimate.extendCohort(Math.max(now, this.lastReservedStart));
			return;
		}
		this.eventsWithoutSuccess = 0;
		this.estimate.onAccepted(info.startedAt, now, fresh, this.holdUntil);
	}

	/** Long enough for the requests in flight to answer, and for one start at the new pace. */
	private briefHoldMs(): number {
		return Math.max(this.latencyMs, 1000 / this.estimate.rate);
	}
}
