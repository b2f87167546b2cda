import { countAfter, remember } from './announcedLimits';

/** The slowest pace: one start per this many ms, so a storm never stalls the run. */
export const MAX_START_GAP_MS = 2_000;
const DECREASE_MAX = 0.9;
const DECREASE_MIN = 0.25;
const SHARE_MARGIN = 0.9;
/** Per second of successes: growth up to what the service was seen to accept, then a probe above it. */
const GROWTH_PER_SECOND = 0.1;
const PROBE_PER_SECOND = 0.01;
const MAX_PROBE_PER_SECOND = 0.2;
const PROBE_DOUBLING_MS = 1000;
/** What the service accepted over the last HORIZON_MS, a little less of it trusted. */
const HORIZON_MS = 1000;
const SEEN_MARGIN = 0.95;

/** The service's rate as the answers show it, per 429 event and its cohort. docs/pacing.md#the-pace */
export class RateEstimate {
	/** Requests per second; Infinity until the first 429. */
	rate = Infinity;
	private failedRate = Infinity;
	private learnedRate = Infinity;
	private lastEventAt: number | undefined;
	private firstStartAt: number | undefined;
	private lastIncreaseAt = 0;
	private starts = 0;
	/** Requests that started up to `to` were reserved before the last slowdown, at the old pace. */
	private cohort = { from: 0, to: -Infinity, answered: 0, accepted: 0, floor: 0 };
	private acceptedStarts: number[] = [];

	recordStart(now: number): void {
		this.firstStartAt ??= now;
		this.starts += 1;
	}

	forgetStart(): void {
		this.starts = Math.max(0, this.starts - 1);
	}

	/** An answer (accepted: not a 429); false when it started before the last event was acted on, at the old pace. */
	answered(startedAt: number, accepted: boolean, now: number, heldUntil: number): boolean {
		const cohort = this.cohort;
		const fresh = startedAt > cohort.to;
		if (!fresh && startedAt > cohort.from) {
			// In flight at the last event: the share of its cohort accepted is the share of the pace the service takes.
			cohort.answered += 1;
			if (accepted) cohort.accepted += 1;
			const share = this.failedRate * (cohort.accepted / cohort.answered) * SHARE_MARGIN;
			this.rate = this.learnedRate = Math.min(
				this.failedRate * DECREASE_MAX,
				Math.max(cohort.floor, share),
			);
		}
		if (!accepted) return fresh;
		remember(this.acceptedStarts, startedAt);
		if (this.rate === Infinity || !fresh) return fresh;
		// Fresh: the rate grows with the time since it last grew or the starts were held.
		const seconds = Math.min(1, Math.max(0, now - Math.max(this.lastIncreaseAt, heldUntil)) / 1000);
		// An estimate taken too low early in a run does not stay: the probe doubles while nothing is refused.
		const quiet = Math.max(0, now - (this.lastEventAt ?? now));
		const probe = Math.min(
			MAX_PROBE_PER_SECOND,
			PROBE_PER_SECOND * 2 ** (quiet / PROBE_DOUBLING_MS),
		);
		const growth = Math.max(this.rate < this.learnedRate ? GROWTH_PER_SECOND : 0, probe);
		this.rate *= 1 + growth * seconds;
		this.lastIncreaseAt = now;
		return fresh;
	}

	/** A 429 event: one decrease, none at a wall; the requests started up to `lastReservedStart` join its cohort. */
	slowDown(now: number, latencyMs: number, lastReservedStart: number, wall: boolean): void {
		this.cohort.to = Math.max(this.cohort.to, now, lastReservedStart);
		if (wall) return;
		const seconds = Math.max(0.001, (now - (this.lastEventAt ?? this.firstStartAt ?? now)) / 1000);
		const current = this.rate !== Infinity ? this.rate : this.starts / seconds;
		const seen = countAfter(this.acceptedStarts, now - HORIZON_MS, true) / (HORIZON_MS / 1000);
		const decreased = Math.min(
			current * DECREASE_MAX,
			Math.max(current * DECREASE_MIN, seen * SEEN_MARGIN),
		);
		this.failedRate = current;
		this.learnedRate = seen * SEEN_MARGIN;
		this.rate = Math.max(1000 / MAX_START_GAP_MS, decreased);
		this.lastEventAt = this.lastIncreaseAt = now;
		this.cohort = {
			from: now - 2 * latencyMs,
			to: Math.max(now, lastReservedStart),
			answered: 0,
			accepted: 0,
			floor: this.rate,
		};
		this.starts = 0;
	}
}
