import { parseRateLimitHeaders } from '../../headers/rateLimitHeaders';
import { MAX_WAIT_PER_RETRY_MS, type HeaderBag } from '../../headers/retryAfter';

/** A spent quota's reset further away than this is waited for; a nearer one is too coarse to use. */
const RESET_RESOLUTION_MS = 2_000;
/** Latency varies: our starts are spread over slightly more than the service's window. */
const WINDOW_MARGIN = 0.02;
/** Starts remembered for the per-window limit; a larger limit is left to `remaining`. */
const MAX_REMEMBERED = 10_000;

/** Appends `value`, keeping at most about 2 × MAX_REMEMBERED of the newest. */
export function remember(list: number[], value: number): void {
	list.push(value);
	if (list.length > 2 * MAX_REMEMBERED) list.splice(0, MAX_REMEMBERED);
}

/** How many of the times in `list` (oldest first) are after `time` (or at it, `inclusive`). */
export function countAfter(list: number[], time: number, inclusive = false): number {
	let count = 0;
	for (let i = list.length - 1; i >= 0 && (list[i] > time || (inclusive && list[i] === time)); i--)
		count++;
	return count;
}

/** The starts the announced limits allow: a named window by time, a bare quota as a count. docs/pacing.md#rate-limit-headers */
export class AnnouncedLimits {
	private limit: number | undefined;
	private windowMs: number | undefined;
	private announced: { remaining: number; resetAt: number; startedAt: number } | undefined;
	/** Every start, from the first request on: the first answer's limits count the starts before it. */
	private readonly starts: number[] = [];
	/** A reserved start may be sent later, after waiting for its place. */
	private readonly sent: number[] = [];
	/** When accepted requests were answered: the service counted each at the latest then. */
	private readonly accepted: number[] = [];
	/** Starts reserved and not over yet. */
	private pending = 0;
	/** Let go beyond a bare quota's `remaining` (a bucket refilling within a round trip). docs/pacing.md#rate-limit-headers */
	private beyondQuota = 0;
	private lastFoundFull = false;
	private firstAnnounced: number | undefined;

	recordStart(start: number): void {
		remember(this.starts, start);
		this.pending += 1;
	}

	endReservation(): void {
		this.pending = Math.max(0, this.pending - 1);
	}

	recordSent(at: number): void {
		remember(this.sent, at);
	}

	/** A bare quota's `remaining` less the requests sent since it was announced (Infinity without one). */
	freeStarts(now: number): number {
		const announced = this.announced;
		if (!announced || this.windowMs !== undefined || now >= announced.resetAt) return Infinity;
		// One sent in the same millisecond as the announcing request counts as after it: the safe side.
		const sentSince = Math.max(0, countAfter(this.sent, announced.startedAt, true) - 1);
		return Math.max(0, Math.floor(announced.remaining + this.beyondQuota - sentSince));
	}

	/** Started before the service first named its limits, which govern the run now (the first wave). */
	sentBlind(startedAt: number, now: number): boolean {
		const announced = this.announced;
		if (announced === undefined || this.firstAnnounced === undefined) return false;
		const governs = this.windowMs !== undefined || now < announced.resetAt;
		return governs && startedAt < this.firstAnnounced;
	}

	/** Ms until the last announcement's reset (0 without one). */
	resetInMs(now: number): number {
		return Math.max(0, Math.min(MAX_WAIT_PER_RETRY_MS, (this.announced?.resetAt ?? now) - now));
	}

	forgetStart(start: number): void {
		const index = this.starts.lastIndexOf(start);
		if (index >= 0) this.starts.splice(index, 1);
		this.endReservation();
	}

	/** An older request's answer, arriving late, knows less than the newest one. */
	read(headers: HeaderBag, startedAt: number, now: number, status: number): void {
		const accepted = status < 300;
		if (accepted) remember(this.accepted, now);
		if (status === 429) this.endBeyondQuota();
		const state = parseRateLimitHeaders(headers, now);
		if (!state || (this.announced && startedAt < this.announced.startedAt)) return;
		this.firstAnnounced ??= now;
		if (state.limit !== undefined && state.limit !== this.limit) {
			this.limit = state.limit;
			this.endBeyondQuota();
		}
		if (state.windowMs !== undefined) this.windowMs = state.windowMs;
		if (accepted && this.windowMs === undefined) {
			// With a limit of 1, full (its one place taken by this request) reads as spent: nothing is learnt.
			const full = this.limit !== undefined && this.limit > 1 && state.remaining >= this.limit - 1;
			// Binding: the count let nothing more go just before this answer (read before it moves).
			if (full && this.lastFoundFull && this.freeStarts(now) < 1) this.beyondQuota += 1;
			else if (state.remaining < 1) this.beyondQuota = Math.floor(this.beyondQuota / 2);
			this.lastFoundFull = full;
		}
		this.announced = { remaining: state.remaining, resetAt: now + state.resetMs, startedAt };
	}

	private endBeyondQuota(): void {
		this.beyondQuota = 0;
		this.lastFoundFull = false;
	}

	/** The earliest start the announced limits allow from `start` on (before it is recorded). */
	earliestStart(start: number, now: number, fastestMs: number): number {
		if (!this.announced) return start;
		const { limit, windowMs, starts } = this;
		const perWindow = limit !== undefined && windowMs !== undefined && limit <= MAX_REMEMBERED;
		if (perWindow) {
			// At most `limit` in any window; an answered request counts from its answer less the fastest one.
			const span = windowMs * (1 + WINDOW_MARGIN);
			let free = starts.length >= limit ? starts[starts.length - limit] + span : -Infinity;
			const room = limit - 1 - this.pending;
			if (room >= 0 && this.accepted.length > room)
				free = Math.max(free, this.accepted.at(-1 - room)! + span - Math.min(fastestMs, span));
			start = Math.max(start, Math.min(free, now + MAX_WAIT_PER_RETRY_MS));
		}
		const { remaining, resetAt, startedAt } = this.announced;
		// Starts after the announcing request were not counted in its `remaining` yet.
		const unseen = countAfter(starts, startedAt);
		if (remaining - unseen >= 1 || start >= resetAt) return start;
		if (resetAt - now > RESET_RESOLUTION_MS) {
			return Math.max(start, Math.min(resetAt, now + MAX_WAIT_PER_RETRY_MS));
		}
		const lastStart = starts.at(-1) ?? -Infinity;
		return perWindow ? Math.max(start, lastStart + windowMs / limit) : start;
	}
}
