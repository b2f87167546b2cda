import { sleep } from 'n8n-workflow';

import { AnnouncedLimits } from './announcedLimits';
import { InFlightGate } from './inFlight';
import { DEFAULT_RETRY } from '../retry';
import { MAX_INTERVAL_MS, RateEstimate } from './rateEstimate';
import { MAX_WAIT_PER_RETRY_MS, retryHintMs } from '../headers/retryAfter';

/**
 * The pace shared by the requests of one node run, taken as one handle: `const turn = await
 * pacer.acquire({ signal, deadline }); … turn.release(answer)`. Beneath it the pace is pure (the clock
 * it is given, the answers it is told): the steps the tests and the simulation drive. docs/pacing.md
 */

/** Without Retry-After, a wall is assumed to stand this long, doubling per refused probe up to MAX_HOLD_MS. */
export const DEFAULT_HOLD_MS = 250;
/** The transport's longest backoff: a wall nobody names is probed at least this often. */
const MAX_HOLD_MS = DEFAULT_RETRY.maxDelayMs;
export { MAX_INTERVAL_MS };
/** The shortest hold for a spent quota: a round trip is seldom shorter. */
const MIN_QUOTA_HOLD_MS = 5;

/** A reserved start: when it was reserved, and the start it holds after waiting `wait` ms. */
export interface Reservation {
	wait: number;
	start: number;
	reservedAt: number;
}

/** An answer, with the request's start and the requests in flight then (what admit() passed it). */
export interface ResponseInfo extends Answer {
	startedAt: number;
	inFlight?: number;
}

export interface PacerOptions {
	/** Epoch milliseconds; Date.now by default. */
	now?: () => number;
}

export interface AcquireOptions {
	/** The execution's cancellation: every wait ends at once with its reason. */
	signal?: AbortSignal;
	/** Epoch ms: a turn that would start after it is refused with DeadlineReached. */
	deadline?: number;
	/** Send and Wait's checks: the run's refusal does not stop them (their wait is the user's). */
	throughRefusal?: boolean;
}

/** A request's place in the run's pace, from acquire() to release(). */
export interface Turn {
	/** Requests in flight when it was let go, itself included. */
	inFlight: number;
	/** When it was let go: its start, for the answer's latency. */
	startedAt: number;
	/** How long it waited for its turn (not for a place in flight). */
	waitedMs: number;
	/** The request is over: its answer (any status), or none when it failed without one. Call once. */
	release(answer?: Answer): void;
}

/** What the pacer learns from an answer. */
export interface Answer {
	status: number;
	/** The response headers, any case; values may be arrays. */
	headers: Record<string, unknown> | undefined;
	/** The response body (a 429's may carry its retry_after). */
	body?: unknown;
}

/** A turn refused because the run's storm ended it (Pacer.refusingRun); `status`: the storm's. */
export class RunStopped extends Error {
	constructor(readonly status: number | undefined) {
		super('The run stopped retrying');
	}
}

/** A turn refused because it would start after the caller's deadline. */
export class DeadlineReached extends Error {
	constructor() {
		super('The wait for a reply ended while the service was rate limiting requests');
	}
}

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
	private readonly refusal = new RunRefusal();

	private readonly gate: InFlightGate;

	constructor(options: PacerOptions = {}) {
		this.now = options.now ?? Date.now;
		this.gate = new InFlightGate(this.now);
	}

	/**
	 * Waits for the request's turn and a place among those in flight; the returned turn is released
	 * once, with the answer. Rejects when cancelled, past the deadline, or when the run stopped.
	 */
	async acquire(options: AcquireOptions = {}): Promise<Turn> {
		const { signal, deadline } = options;
		const stopped = () => !options.throughRefusal && this.refusingRun;
		let waitedMs = 0;
		for (;;) {
			signal?.throwIfAborted();
			if (stopped()) throw new RunStopped(this.refusal.status);
			let reserved = this.takeTurn();
			let taken = false;
			try {
				for (; reserved.wait > 0; reserved = this.resume(reserved)) {
					if (deadline !== undefined && this.now() + reserved.wait > deadline)
						throw new DeadlineReached();
					await sleep(reserved.wait, signal);
					waitedMs += reserved.wait;
				}
				if (stopped()) throw new RunStopped(this.refusal.status);
				taken = true;
			} finally {
				// Cancelled, late or stopped while waiting: given up, not taken.
				if (!taken) this.abandonTurn(reserved);
			}
			const heldMs = this.quotaHoldMs(reserved);
			if (heldMs !== undefined) {
				await sleep(heldMs, signal).catch(() => undefined); // cancelled: seen at the next turn
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

	/** Reserves the next start: the request waits `wait` ms, then asks resume() whether it still holds. */
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
			this.nextStart = start + Math.min(MAX_INTERVAL_MS, 1000 / this.estimate.rate);
		return { wait: start - now, start, reservedAt: now };
	}

	/**
	 * After waiting a turn: the same turn with nothing left to wait, or a new one when a 429 paused the
	 * starts meanwhile (a turn taken at the old pace would meet the same limit; it goes behind the probe).
	 */
	resume(turn: Reservation): Reservation {
		if (this.pausedAt <= turn.reservedAt) return { ...turn, wait: 0 };
		this.abandonTurn(turn);
		return this.takeTurn();
	}

	/** A reserved start that will not happen: it no longer counts anywhere. */
	abandonTurn(turn: Reservation): void {
		this.announcedLimits.forgetStart(turn.start);
		this.estimate.forgetStart();
	}

	/**
	 * While a bare announced quota is spent by the requests sent since it was announced, and one is in
	 * flight to renew it: the turn is given up, and a new one is taken after one round trip (at most the
	 * quota's reset). With nothing in flight, one goes. docs/pacing.md#rate-limit-headers
	 */
	quotaHoldMs(turn: Reservation): number | undefined {
		const now = this.now();
		if (!this.gate.busy || this.announcedLimits.freeStarts(now) >= 1) return undefined;
		this.abandonTurn(turn);
		return Math.min(
			this.announcedLimits.resetInMs(now),
			Math.max(MIN_QUOTA_HOLD_MS, this.fastestMs),
		);
	}

	/** Calls `start` with the number in flight (itself included) once one more may be in flight. */
	admit(start: (inFlight: number) => void): void {
		this.gate.admit((inFlight) => {
			this.announcedLimits.recordSent(this.now());
			start(inFlight);
		});
	}

	/** An admitted request is over, answered or not. */
	release(): void {
		this.gate.release();
		this.announcedLimits.endReservation();
	}

	/** A request first sent at `firstSentAt` spent its retry budget on faults (see RunRefusal). */
	gaveUp(firstSentAt: number, status?: number): void {
		this.refusal.gaveUp(firstSentAt, status);
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
				MAX_WAIT_PER_RETRY_MS,
				retryHintMs(info.headers, info.body, now) ??
					Math.min(MAX_HOLD_MS, DEFAULT_HOLD_MS * 2 ** Math.max(0, this.eventsWithoutSuccess - 1)),
			);
			// The first refusal since a success is an event: the pace drops. A probe refused again, with no
			// success between, meets a wall (a spent window or quota): the pace stays, the pause grows.
			const wall = this.eventsWithoutSuccess > 0;
			if (!wall) this.estimate.slowDown(now, this.latencyMs, this.lastReservedStart);
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

/**
 * Whether the service refused a whole run: a request spent its retry budget on service faults (429s,
 * 5xx, no answer) while the service served nothing of the run since that request was first sent (a
 * storm that does not clear). The run's other requests then stop instead of each spending a budget of
 * its own, so the run ends after one budget, not one per item. Pure: the times are the caller's.
 */
export class RunRefusal {
	/** When the service last served a request of the run (any answer but a 429 or a 5xx). */
	private lastServedAt = -Infinity;
	private refused = false;
	/** The status of the fault that stopped the run (undefined: no answer came). */
	status: number | undefined;

	/** An answer: one that served the request lifts the refusal. */
	answered(status: number, now: number): void {
		if (status === 429 || status >= 500) return;
		this.lastServedAt = now;
		this.refused = false;
	}

	/** A request first sent at `firstSentAt` spent its retry budget on faults, the last one `status`. */
	gaveUp(firstSentAt: number, status?: number): void {
		if (this.lastServedAt >= firstSentAt) return;
		this.refused = true;
		this.status = status;
	}

	get active(): boolean {
		return this.refused;
	}
}
