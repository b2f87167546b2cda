/** A cap on requests in flight shows as an edge in the answers per level in flight. docs/pacing.md#a-cap-on-requests-in-flight */

/** Levels counted; a start with more in flight counts at this level. */
const MAX_LEVEL = 64;
/** A level above a known cap joins it once this many of its answers were counted, nearly all accepted. */
const MIN_TO_RAISE = 20;
/** At or below the cap: at most this share of the answers refused; at the cap itself, LEVEL_CLEAN. */
const CLEAN_BELOW = 0.05;
const LEVEL_CLEAN = 0.2;
/** Above it: at least this share of the answers refused, and at least MIN_REFUSED of them. */
const REFUSED_ABOVE = 0.8;
const MIN_REFUSED = 2;

/** Answers per level in flight at their start (index 1..MAX_LEVEL). */
export interface LevelCounts {
	accepted: number[];
	refused: number[];
}

export function emptyLevels(): LevelCounts {
	return {
		accepted: new Array<number>(MAX_LEVEL + 1).fill(0),
		refused: new Array<number>(MAX_LEVEL + 1).fill(0),
	};
}

export function countAnswer(levels: LevelCounts, inFlight: number, accepted: boolean): void {
	const level = Math.min(MAX_LEVEL, Math.max(1, Math.floor(inFlight)));
	(accepted ? levels.accepted : levels.refused)[level] += 1;
}

const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);

/** The highest level with (nearly) everything accepted up to it and most of what started above refused. */
export function inFlightCap(levels: LevelCounts): number | undefined {
	let acceptedAbove = 0;
	let refusedAbove = 0;
	let acceptedBelow = sum(levels.accepted);
	let refusedBelow = sum(levels.refused);
	for (let cap = MAX_LEVEL - 1; cap >= 1; cap--) {
		acceptedAbove += levels.accepted[cap + 1];
		refusedAbove += levels.refused[cap + 1];
		acceptedBelow -= levels.accepted[cap + 1];
		refusedBelow -= levels.refused[cap + 1];
		const atCap = levels.accepted[cap] + levels.refused[cap];
		const capClean = levels.accepted[cap] > 0 && levels.refused[cap] <= LEVEL_CLEAN * atCap;
		const cleanBelow = refusedBelow <= CLEAN_BELOW * (acceptedBelow + refusedBelow);
		const refusingAbove =
			refusedAbove >= MIN_REFUSED && refusedAbove >= REFUSED_ABOVE * (acceptedAbove + refusedAbove);
		if (capClean && cleanBelow && refusingAbove) return cap;
	}
	return undefined;
}

/** The cap after one more answer: the edge, else the known cap, raised once the level above it proves clean. */
export function nextCap(levels: LevelCounts, cap: number | undefined): number | undefined {
	const edge = inFlightCap(levels);
	if (edge !== undefined || cap === undefined) return edge;
	const above = cap + 1;
	if (above > MAX_LEVEL) return cap;
	const answers = levels.accepted[above] + levels.refused[above];
	const clean = answers >= MIN_TO_RAISE && levels.refused[above] <= CLEAN_BELOW * answers;
	return clean ? above : cap;
}

/** A cap that keeps requests waiting is probed after this many of them: one more in flight. */
const CAP_PROBE_EVERY = 500;

/** Unbounded until the answers show a cap, then at most that many in flight, now and then one above. */
export class InFlightGate {
	/** Started and not released; the most allowed (the cap, plus a probe). */
	private inFlight = 0;
	private limit = Infinity;
	/** The cap the answers show, if any. */
	cap: number | undefined;
	private readonly levels = emptyLevels();
	private readonly waiting: Array<(inFlight: number) => void> = [];
	private admittedAfterWaiting = 0;
	private probeEvery = CAP_PROBE_EVERY;
	/** Requests started before the cap last changed were not probes. */
	private capSince = 0;

	constructor(private readonly now: () => number) {}

	/** Any request in flight or waiting for its place. */
	get busy(): boolean {
		return this.inFlight + this.waiting.length > 0;
	}

	/** Calls `start` with the number in flight (itself included), at once or when another is released. */
	admit(start: (inFlight: number) => void): void {
		if (this.inFlight < this.limit) {
			this.inFlight += 1;
			start(this.inFlight);
		} else this.waiting.push(start);
	}

	release(): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		this.admitWaiting();
	}

	/** One answer (only 2xx and 429 count) of a request that started with `inFlight` in flight. */
	learn(status: number, startedAt: number, inFlight: number): void {
		if (status !== 429 && status >= 300) return;
		countAnswer(this.levels, inFlight, status !== 429);
		const cap = nextCap(this.levels, this.cap);
		if (cap === this.cap) {
			// A probe above the cap refused: back to the cap, and the next probe twice as far away.
			if (status === 429 && cap !== undefined && inFlight > cap && startedAt >= this.capSince) {
				this.limit = cap;
				this.probeEvery *= 2;
			}
			return;
		}
		this.cap = cap;
		this.capSince = this.now();
		this.limit = cap ?? Infinity;
		this.admittedAfterWaiting = 0;
		this.probeEvery = CAP_PROBE_EVERY;
		this.admitWaiting();
	}

	private admitWaiting(): void {
		while (this.waiting.length > 0 && this.inFlight < this.limit) {
			this.inFlight += 1;
			if (++this.admittedAfterWaiting >= this.probeEvery) {
				this.admittedAfterWaiting = 0;
				this.limit += 1;
			}
			this.waiting.shift()!(this.inFlight);
		}
	}
}
