import { sleep } from 'n8n-workflow';

import { AnnouncedLimits } from './announcedLimits';
import { InFlightGate } from './inFlight';
import { DEFAULT_RETRY } from '../retry';
import { MAX_START_GAP_MS, RateEstimate } from './rateEstimate';
import { retryHintMs } from '../../headers/retryAfter';
import type { RawResponse } from '../outcome';

/** The pace shared by the requests of one node run, taken as one handle (acquire → release). docs/pacing.md */

/** Without Retry-After, a refused probe's pause: doubling per refused probe up to the longest backoff. */
const DEFAULT_HOLD_MS = 250;
const MAX_HOLD_MS = DEFAULT_RETRY.maxDelayMs;
/** The shortest hold for a spent quota: a round trip is seldom shorter. */
const MIN_QUOTA_HOLD_MS = 5;

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface AcquireOptions {
	signal?: AbortSignal;
	/** Epoch ms: no turn starts after it (DeadlineReached); the transport neither waits nor retries past it. */
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

type Answer = Pick<RawResponse, 'statusCode' | 'headers' | 'body'>;

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

/** A start reserved at `reservedAt`, due after `wait` ms. */
type Reserved = { start: number; wait: number; reservedAt: number };

export class Pacer {
	private readonly now: () => number;
	private readonly sleep: Sleep;
	private readonly estimate = new RateEstimate();
	private readonly limits = new AnnouncedLimits();
	private readonly gate: InFlightGate;
	private holdUntil = 0;
	/** A turn reserved before a 429 paused the starts is reserved again. */
	private pausedAt = -Infinity;
	private nextStart = 0;
	private lastReservedStart = -Infinity;
	/** The next start is a probe after an event's pause. */
	private probePending = false;
	private eventsWithoutSuccess = 0;
	private latencyMs = 0;
	/** No request of this run reaches the service's decision sooner. */
	private fastestMs = Infinity;
	/** The storm rule: when the service last served a request of the run, and why the run stopped. */
	private lastServedAt = -Infinity;
	private stopped: { status: number | undefined } | undefined;

	/** `now` (epoch ms) and `sleep` are the test's clock; Date.now and n8n's sleep by default. */
	constructor(clock: { now?: () => number; sleep?: Sleep } = {}) {
		this.now = clock.now ?? Date.now;
		this.sleep = clock.sleep ?? sleep;
		this.gate = new InFlightGate(this.now);
	}

	/** Waits for a turn and a place in flight; rejects when cancelled, past the deadline, or stopped. */
	async acquire({ signal, deadline, throughRefusal }: AcquireOptions = {}): Promise<Turn> {
		const refuseIfStopped = () => {
			if (this.stopped && !throughRefusal) throw new RunStopped(this.stopped.status);
		};
		let waitedMs = 0;
		for (;;) {
			signal?.throwIfAborted();
			refuseIfStopped();
			let reserved = this.reserve();
			let taken = false;
			try {
				while (reserved.wait > 0) {
					if (deadline !== undefined && this.now() + reserved.wait > deadline)
						throw new DeadlineReached();
					await this.sleep(reserved.wait, signal);
					waitedMs += reserved.wait;
					if (this.pausedAt <= reserved.reservedAt) break;
					this.forget(reserved); // a turn at the old pace would meet the same limit
					reserved = this.reserve();
				}
				refuseIfStopped();
				taken = true;
			} finally {
				if (!taken) this.forget(reserved); // cancelled, late or stopped while waiting: given up
			}
			// A spent bare quota, one in flight to renew it: a new turn after a round trip. docs/pacing.md#rate-limit-headers
			const now = this.now();
			if (this.gate.busy && this.limits.freeStarts(now) < 1) {
				this.forget(reserved);
				const roundTrip = Math.max(MIN_QUOTA_HOLD_MS, this.fastestMs);
				await this.sleep(Math.min(this.limits.resetInMs(now), roundTrip), signal).catch(
					() => undefined, // cancelled: seen at the next turn
				);
				continue;
			}
			const inFlight = await new Promise<number>((resolve) =>
				this.gate.admit((inFlight) => {
					this.limits.recordSent(this.now());
					resolve(inFlight);
				}),
			);
			const startedAt = this.now();
			let released = false;
			return {
				inFlight,
				startedAt,
				waitedMs,
				release: (answer?: Answer) => {
					if (released) return;
					released = true;
					if (answer) this.learn(answer, startedAt, inFlight);
					this.gate.release();
					this.limits.endReservation();
				},
			};
		}
	}

	/** A request's budget spent on service faults: nothing served since its first send stops the run. docs/pacing.md#bounds */
	gaveUp(firstSentAt: number, status?: number): void {
		if (this.lastServedAt < firstSentAt) this.stopped = { status };
	}

	private reserve(): Reserved {
		const now = this.now();
		this.estimate.recordStart(now);
		const paced = Math.max(now, this.holdUntil, this.nextStart);
		const start = this.limits.earliestStart(paced, now, this.fastestMs);
		this.limits.recordStart(start);
		this.lastReservedStart = start;
		if (this.probePending) {
			// The first start after a 429's hold goes alone: the next waits for its answer to be due.
			this.probePending = false;
			this.nextStart = start + this.briefMs();
		} else if (this.estimate.rate !== Infinity)
			this.nextStart = start + Math.min(MAX_START_GAP_MS, 1000 / this.estimate.rate);
		return { start, wait: start - now, reservedAt: now };
	}

	private forget(reserved: Reserved): void {
		this.limits.forgetStart(reserved.start);
		this.estimate.forgetStart();
	}

	/** Every answer: success, 429 or any other status. */
	private learn(answer: Answer, startedAt: number, inFlight: number): void {
		const { statusCode: status, headers, body } = answer;
		const now = this.now();
		if (status !== 429 && status < 500) {
			this.lastServedAt = now;
			this.stopped = undefined;
		}
		const latency = Math.max(0, now - startedAt);
		this.latencyMs = this.latencyMs ? this.latencyMs * 0.9 + latency * 0.1 : latency;
		this.fastestMs = Math.min(this.fastestMs, latency);
		this.limits.read(headers, startedAt, now, status);
		this.gate.learn(status, startedAt, inFlight);
		if (status >= 500) return; // says nothing about the rate limit
		// Refused above the service's cap on requests in flight: the cap's news, not the rate's.
		if (status === 429 && inFlight > (this.gate.cap ?? Infinity)) return;
		const fresh = this.estimate.answered(startedAt, status !== 429, now, this.holdUntil);
		if (status !== 429) {
			this.eventsWithoutSuccess = 0;
			return;
		}
		if (!fresh) return; // started at the old pace: the same news as the event's, already acted on
		// A first wave, sent before the service named the limits that now keep the run under them.
		if (this.limits.sentBlind(startedAt, now)) return;
		const asked =
			retryHintMs(headers, body, now) ??
			Math.min(MAX_HOLD_MS, DEFAULT_HOLD_MS * 2 ** Math.max(0, this.eventsWithoutSuccess - 1));
		// A probe refused again, with no success between, meets a wall: the pace stays, the pause grows.
		const wall = this.eventsWithoutSuccess > 0;
		this.estimate.slowDown(now, this.latencyMs, this.lastReservedStart, wall);
		this.eventsWithoutSuccess += 1;
		const probeGap = this.briefMs() * 2 ** (this.eventsWithoutSuccess - 1);
		this.holdUntil = Math.max(this.holdUntil, now + Math.min(asked, probeGap));
		this.pausedAt = now;
		this.nextStart = 0;
		this.probePending = true;
	}

	/** Long enough for the requests in flight to answer, and for one start at the new pace. */
	private briefMs(): number {
		return Math.max(this.latencyMs, 1000 / this.estimate.rate);
	}
}
