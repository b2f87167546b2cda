import { sleep } from 'n8n-workflow';

import { AnnouncedLimits } from './announcedLimits';
import { InFlightGate } from './inFlight';
import { DEFAULT_RETRY } from '../retry';
import { MAX_START_GAP_MS, RateEstimate } from './rateEstimate';
import { retryHintMs } from '../headers/retryAfter';

/** The pace shared by the requests of one node run, taken as one handle (acquire → release). docs/pacing.md */

/** Without Retry-After, a refused probe's pause: doubling per refused probe up to the longest backoff. */
const DEFAULT_HOLD_MS = 250;
const MAX_HOLD_MS = DEFAULT_RETRY.maxDelayMs;
export { MAX_START_GAP_MS };
/** The shortest hold for a spent quota: a round trip is seldom shorter. */
const MIN_QUOTA_HOLD_MS = 5;

/** A reserved start: reserved at `reservedAt`, due after `wait` ms. */
export interface Reservation {
	wait: number;
	start: number;
	reservedAt: number;
}

/** An answer, with its request's start and the requests in flight then. */
export interface ResponseInfo extends Answer {
	startedAt: number;
	inFlight?: number;
}

export interface PacerOptions {
	/** Epoch ms; Date.now by default. */
	now?: () => number;
	/** n8n's sleep by default; the simulation's runs in virtual time. */
	sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface AcquireOptions {
	signal?: AbortSignal;
	/** Epoch ms: a turn that would start after it is refused with DeadlineReached. */
	deadline?: number;
	/** Send and Wait's checks: the storm rule does not stop them (their wait is the user's). */
	throughRefusal?: boolean;
}

/** A request's place in the run's pace, from acquire() to release(). */
export interface Turn {
	/** Requests in flight when it was let go, itself included. */
	inFlight: number;
	startedAt: number;
	/** Waited for its turn (not for a place in flight). */
	waitedMs: number;
	/** Once: the answer (any status), or none when the request failed without one. */
	release(answer?: Answer): void;
}

export interface Answer {
	status: number;
	/** Any case; values may be arrays. */
	headers: Record<string, unknown> | undefined;
	/** A 429's may carry its retry_after. */
	body?: unknown;
}

/** A turn refused because the storm rule stopped the run; `status`: the storm's. */
export class RunStopped extends Error {
	constructor(readonly status: number | undefined) {
		super('The run stopped retrying');
	}
}

export class DeadlineReached extends Error {
	constructor() {
		super('The wait for a reply ended while the service was rate limiting requests');
	}
}

export class Pacer {
	private readonly now: () => number;
	private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
	private holdUntil = 0;
	/** A turn taken before a 429 paused the starts is taken again (resume). */
	private pausedAt = -Infinity;
	private nextStart = 0;
	private readonly estimate = new RateEstimate();
	private eventsWithoutSuccess = 0;
	private latencyMs = 0;
	/** No request of this run reaches the service's decision sooner. */
	private fastestMs = Infinity;
	private lastReservedStart = -Infinity;
	private readonly announcedLimits = new AnnouncedLimits();
	/** The next start is a probe after an event's pause. */
	private probePending = false;
	/** The storm rule: when the service last served a request of the run, and why the run stopped. */
	private lastServedAt = -Infinity;
	private stopped: { status: number | undefined } | undefined;
	private readonly gate: InFlightGate;

	constructor(options: PacerOptions = {}) {
		this.now = options.now ?? Date.now;
		this.sleep = options.sleep ?? sleep;
		this.gate = new InFlightGate(this.now);
	}

	/** Waits for a turn and a place in flight; rejects when cancelled, past the deadline, or stopped. */
	async acquire(options: AcquireOptions = {}): Promise<Turn> {
		const { signal, deadline } = options;
		const stopped = () => !options.throughRefusal && this.refusingRun;
		let waitedMs = 0;
		for (;;) {
			signal?.throwIfAborted();
			if (stopped()) throw new RunStopped(this.stopped?.status);
			let reserved = this.takeTurn();
			let taken = false;
			try {
				for (; reserved.wait > 0; reserved = this.resume(reserved)) {
					if (deadline !== undefined && this.now() + reserved.wait > deadline)
						throw new DeadlineReached();
					await this.sleep(reserved.wait, signal);
					waitedMs += reserved.wait;
				}
				if (stopped()) throw new RunStopped(this.stopped?.status);
				taken = true;
			} finally {
				// Cancelled, late or stopped while waiting: given up, not taken.
				if (!taken) this.abandonTurn(reserved);
			}
			const heldMs = this.quotaHoldMs(reserved);
			if (heldMs !== undefined) {
				await this.sleep(heldMs, signal).catch(() => undefined); // cancelled: seen at the next turn
				continue;
			}
			const inFlight = await new Promise<number>((resolve) => this.admit(resolve));
			const startedAt = this.now();
			let released = false;
			return {
				inFlight,
				startedAt,
				waitedMs,
				release: (answer?: Answer) => {
					if (released) return;
					released = true;
					if (answer) this.onResponse({ ...answer, startedAt, inFlight });
					this.release();
				},
			};
		}
	}

	/** Reserves the next start: wait `wait` ms, then ask resume() whether it still holds. */
	takeTurn(): Reservation {
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
			this.nextStart = start + Math.min(MAX_START_GAP_MS, 1000 / this.estimate.rate);
		return { wait: start - now, start, reservedAt: now };
	}

	/** A turn taken at the old pace before a 429's pause would meet the same limit: taken again. */
	resume(turn: Reservation): Reservation {
		if (this.pausedAt <= turn.reservedAt) return { ...turn, wait: 0 };
		this.abandonTurn(turn);
		return this.takeTurn();
	}

	abandonTurn(turn: Reservation): void {
		this.announcedLimits.forgetStart(turn.start);
		this.estimate.forgetStart();
	}

	/** A spent bare quota, one in flight to renew it: a new turn after a round trip. docs/pacing.md#rate-limit-headers */
	quotaHoldMs(turn: Reservation): number | undefined {
		const now = this.now();
		if (!this.gate.busy || this.announcedLimits.freeStarts(now) >= 1) return undefined;
		this.abandonTurn(turn);
		return Math.min(
			this.announcedLimits.resetInMs(now),
			Math.max(MIN_QUOTA_HOLD_MS, this.fastestMs),
		);
	}

	admit(start: (inFlight: number) => void): void {
		this.gate.admit((inFlight) => {
			this.announcedLimits.recordSent(this.now());
			start(inFlight);
		});
	}

	release(): void {
		this.gate.release();
		this.announcedLimits.endReservation();
	}

	/**
	 * A request first sent at `firstSentAt` spent its retry budget on service faults: when the service
	 * served nothing of the run since, the run stops (the storm rule). docs/pacing.md#bounds
	 */
	gaveUp(firstSentAt: number, status?: number): void {
		if (this.lastServedAt < firstSentAt) this.stopped = { status };
	}

	get refusingRun(): boolean {
		return this.stopped !== undefined;
	}

	/** Every answer: success, 429 or any other status. */
	onResponse(info: ResponseInfo): void {
		const now = this.now();
		if (info.status !== 429 && info.status < 500) {
			this.lastServedAt = now;
			this.stopped = undefined;
		}
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
			// A first wave, sent before the service named the limits that now keep the run under them.
			if (this.announcedLimits.sentBlind(info.startedAt, now)) return;
			const asked =
				retryHintMs(info.headers, info.body, now) ??
				Math.min(MAX_HOLD_MS, DEFAULT_HOLD_MS * 2 ** Math.max(0, this.eventsWithoutSuccess - 1));
			// A probe refused again, with no success between, meets a wall: the pace stays, the pause grows.
			const wall = this.eventsWithoutSuccess > 0;
			if (!wall) this.estimate.slowDown(now, this.latencyMs, this.lastReservedStart);
			this.eventsWithoutSuccess += 1;
			const probeGap = this.briefHoldMs() * 2 ** (this.eventsWithoutSuccess - 1);
			this.holdUntil = Math.max(this.holdUntil, now + Math.min(asked, probeGap));
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
