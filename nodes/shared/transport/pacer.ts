import { MAX_RETRY_AFTER_MS, parseRateLimitHeaders, parseRetryAfter } from './retryAfter';

/**
 * The pace shared by the concurrent requests of one node run. Pure: it only sees the clock it is given
 * (epoch milliseconds) and the answers it is told about, and says how long the next start waits.
 *
 * - A service that never limits costs nothing: no spacing, no hold, reserve() returns 0.
 * - A 429 holds every start until its Retry-After moment (at most MAX_RETRY_AFTER_MS). Retry-After says
 *   when to try again, not how far apart requests go: the pace is learned, AIMD on the request rate.
 * - Decrease: a 429 of a request reserved after the last slowdown is a new event (429s of requests
 *   reserved before it repeat the same news and only extend the hold). The rate drops to what the
 *   service accepted since the previous event, kept between a quarter and nine tenths of the failing
 *   rate; then, as the requests that were in flight at the event get their answers, to the share of
 *   them the service accepted (a token bucket or a cap on requests in flight accepts its own rate).
 * - Increase: each success raises the rate. After a rate measured on the in-flight requests, only a slow
 *   probe; after a cut to what the last cycle got (holds make that too low), a quick approach back
 *   towards the failing rate, then the probe.
 * - Every wait is bounded: a hold by MAX_RETRY_AFTER_MS, the spacing by MAX_INTERVAL_MS, a wait for an
 *   announced limit by MAX_RETRY_AFTER_MS. 5xx answers are left to the transport's backoff.
 * - Rate-limit headers keep the run under the limit before any 429: with a named window (RateLimit-Policy
 *   `w=`), never more than `limit` starts per window, and once the announced `remaining` is spent, one
 *   start per window/limit; a spent quota whose reset is more than RESET_RESOLUTION_MS away holds
 *   everything until then. A reset of a second or less, rounded to whole seconds, says too little to
 *   pace by: those services are paced by their 429s.
 */

/** Without Retry-After, a 429 holds starts this long, doubling per event without a success between. */
export const DEFAULT_HOLD_MS = 250;
/** The slowest pace: one start per this many ms, so a storm never stalls the run. */
export const MAX_INTERVAL_MS = 2_000;
/** A reset of a spent quota further away than this is waited for; a nearer one is too coarse to use. */
export const RESET_RESOLUTION_MS = 2_000;
const DECREASE_MAX = 0.9;
const DECREASE_MIN = 0.25;
/** The share of the in-flight requests' acceptance trusted as the service's rate. */
const SHARE_MARGIN = 0.9;
/** Per second: the share of the gap to the failing rate closed, and the share of the rate probed. */
const APPROACH_PER_SECOND = 0.5;
const APPROACH_TARGET = 0.97;
const PROBE_PER_SECOND = 0.005;
/** Latency varies: our starts are spread over slightly more than the service's window. */
const WINDOW_MARGIN = 0.02;
/** Starts remembered for the per-window limit; a larger limit is left to `remaining`. */
const MAX_REMEMBERED_STARTS = 10_000;

export interface PacerOptions {
	/** Epoch milliseconds; Date.now by default. */
	now?: () => number;
}

export interface ResponseInfo {
	status: number;
	/** The response headers, any case; values may be arrays. */
	headers: Record<string, unknown> | undefined;
	/** When the request started (the clock's time after its reserve() wait). */
	startedAt: number;
}

export class Pacer {
	private readonly now: () => number;
	private holdUntil = 0;
	private nextStart = 0;
	/** Requests per second; Infinity until the first 429. */
	private rate = Infinity;
	/** The rate at the last 429 event, and the estimate taken then. */
	private failedRate = Infinity;
	private learnedRate = Infinity;
	private lastEventAt: number | undefined;
	private firstStartAt: number | undefined;
	private lastIncreaseAt = 0;
	private eventsWithoutSuccess = 0;
	/** Since the last event: starts reserved, answers accepted. */
	private starts = 0;
	private accepted = 0;
	/** Requests that started up to `to` were reserved before the last slowdown, at the old pace. */
	private cohort = { from: 0, to: -Infinity, answered: 0, accepted: 0, floor: 0 };
	private latencyMs = 0;
	/** Whether the learned rate is the in-flight requests' acceptance, not just what the last cycle got. */
	private measured = false;
	private lastReservedStart = -Infinity;
	/** Header rules, once a service sent rate-limit headers. */
	private limit: number | undefined;
	private windowMs: number | undefined;
	private announced: { remaining: number; resetAt: number; startedAt: number } | undefined;
	private recentStarts: number[] = [];

	constructor(options: PacerOptions = {}) {
		this.now = options.now ?? Date.now;
	}

	/** Milliseconds the next request must wait before it starts; reserves that start. */
	reserve(): number {
		const now = this.now();
		this.firstStartAt ??= now;
		this.starts += 1;
		let start = Math.max(now, this.holdUntil, this.nextStart);
		if (this.announced) start = this.headerStart(start, now);
		// Remembered from the first request on: the first answer's limits count the starts before it.
		this.recentStarts.push(start);
		if (this.recentStarts.length > 2 * MAX_REMEMBERED_STARTS)
			this.recentStarts.splice(0, MAX_REMEMBERED_STARTS);
		this.lastReservedStart = start;
		if (this.rate !== Infinity)
			this.nextStart = start + Math.min(MAX_INTERVAL_MS, 1000 / this.rate);
		return start - now;
	}

	/** Every answer: success, 429 or any other status. */
	onResponse(info: ResponseInfo): void {
		const now = this.now();
		const latency = Math.max(0, now - info.startedAt);
		this.latencyMs = this.latencyMs ? this.latencyMs * 0.9 + latency * 0.1 : latency;
		this.readRateLimitHeaders(info, now);
		if (info.status >= 500) return; // says nothing about the rate limit
		const fresh = info.startedAt > this.cohort.to;
		if (!fresh && info.startedAt > this.cohort.from) this.countCohort(info.status !== 429);
		if (info.status === 429) {
			if (fresh) this.slowDown(now);
			const fallback = DEFAULT_HOLD_MS * 2 ** Math.max(0, this.eventsWithoutSuccess - 1);
			const hold = Math.min(MAX_RETRY_AFTER_MS, parseRetryAfter(info.headers, now) ?? fallback);
			this.holdUntil = Math.max(this.holdUntil, now + hold);
			return;
		}
		this.accepted += 1;
		this.eventsWithoutSuccess = 0;
		if (this.rate === Infinity || !fresh) return;
		const seconds = Math.min(
			1,
			Math.max(0, now - Math.max(this.lastIncreaseAt, this.holdUntil)) / 1000,
		);
		const target = this.measured ? this.learnedRate : this.failedRate * APPROACH_TARGET;
		const gap = Math.max(0, target - this.rate);
		this.rate += (gap * APPROACH_PER_SECOND + this.learnedRate * PROBE_PER_SECOND) * seconds;
		this.lastIncreaseAt = now;
	}

	/** One decrease per 429 event. */
	private slowDown(now: number): void {
		const seconds = Math.max(0.001, (now - (this.lastEventAt ?? this.firstStartAt ?? now)) / 1000);
		const current = this.rate !== Infinity ? this.rate : this.starts / seconds;
		const acceptedRate = this.accepted / seconds;
		const decreased = Math.min(
			current * DECREASE_MAX,
			Math.max(current * DECREASE_MIN, acceptedRate),
		);
		this.failedRate = current;
		this.rate = this.learnedRate = Math.max(1000 / MAX_INTERVAL_MS, decreased);
		this.lastEventAt = this.lastIncreaseAt = now;
		const inFlightSince = now - 2 * this.latencyMs;
		this.cohort = {
			from: inFlightSince,
			to: Math.max(now, this.lastReservedStart),
			answered: 0,
			accepted: 0,
			floor: this.rate,
		};
		this.eventsWithoutSuccess += 1;
		this.accepted = this.starts = 0;
		this.measured = false;
	}

	/** The requests in flight at the event: the share of them accepted is the share of the pace the service takes. */
	private countCohort(accepted: boolean): void {
		const cohort = this.cohort;
		cohort.answered += 1;
		if (accepted) cohort.accepted += 1;
		const share = this.failedRate * (cohort.accepted / cohort.answered) * SHARE_MARGIN;
		this.measured = share > cohort.floor;
		this.rate = this.learnedRate = Math.min(
			this.failedRate * DECREASE_MAX,
			Math.max(cohort.floor, share),
		);
	}

	private readRateLimitHeaders(info: ResponseInfo, now: number): void {
		const state = parseRateLimitHeaders(info.headers, now);
		// An older request's answer, arriving late, knows less than the newest one.
		if (!state || (this.announced && info.startedAt < this.announced.startedAt)) return;
		if (state.limit !== undefined) this.limit = state.limit;
		if (state.windowMs !== undefined) this.windowMs = state.windowMs;
		this.announced = {
			remaining: state.remaining,
			resetAt: now + state.resetMs,
			startedAt: info.startedAt,
		};
	}

	/** The earliest start the announced limits allow, from `start` on. */
	private headerStart(start: number, now: number): number {
		const { limit, windowMs, recentStarts: starts } = this;
		const perWindow =
			limit !== undefined && windowMs !== undefined && limit <= MAX_REMEMBERED_STARTS;
		if (perWindow && starts.length >= limit) {
			// At most `limit` starts in any window (a fixed window is one of them): the oldest must leave it.
			const free = starts[starts.length - limit] + windowMs * (1 + WINDOW_MARGIN);
			start = Math.max(start, Math.min(free, now + MAX_RETRY_AFTER_MS));
		}
		const { remaining, resetAt, startedAt } = this.announced!;
		// Starts after the announcing request were not counted in its `remaining` yet.
		let unseen = 0;
		for (let i = starts.length - 1; i >= 0 && starts[i] > startedAt; i--) unseen++;
		if (remaining - unseen >= 1 || start >= resetAt) return start;
		if (resetAt - now > RESET_RESOLUTION_MS) {
			return Math.max(start, Math.min(resetAt, now + MAX_RETRY_AFTER_MS));
		}
		return perWindow ? Math.max(start, this.lastReservedStart + windowMs / limit) : start;
	}
}
