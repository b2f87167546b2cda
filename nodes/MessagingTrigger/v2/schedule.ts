/**
 * Version 2's pace, pure: how long to wait before the next check, after a success or a failure, and
 * when a run of failures is worth reporting. A failure never stops the trigger: it checks again later.
 */

export const MIN_INTERVAL_MS = 5_000;

/** Failures never push the next check further out than this (unless the service's Retry-After asks for more). */
export const MAX_BACKOFF_MS = 5 * 60_000;

/**
 * A wait the service asks for longer than this is read as this. (The transport's own cap, 60 s, is
 * for a wait within one request; between checks the service's whole wait is honoured.)
 */
export const LONGEST_SERVICE_WAIT_MS = 60 * 60_000;

/** Check Every's default, in seconds. */
export const DEFAULT_INTERVAL_SECONDS = 15;

export type IntervalUnit = 'seconds' | 'minutes' | 'hours';

export const UNIT_MS: Record<IntervalUnit, number> = {
	seconds: 1_000,
	minutes: 60_000,
	hours: 3_600_000,
};

/** The interval the user chose, in milliseconds, never under five seconds. */
export function intervalMs(value: number, unit: IntervalUnit): number {
	const ms = Number(value) * (UNIT_MS[unit] ?? UNIT_MS.seconds);
	return Number.isFinite(ms) ? Math.max(MIN_INTERVAL_MS, Math.round(ms)) : MIN_INTERVAL_MS;
}

/**
 * The wait before the next check. After `failures` consecutive failed checks (0: the last one
 * succeeded) the wait doubles from the interval up to a cap (or the interval, when that is longer),
 * and is never shorter than the service's Retry-After. `random` spreads retries by up to a tenth.
 */
export function nextDelay(
	interval: number,
	failures: number,
	retryAfter?: number,
	random: () => number = Math.random,
): number {
	if (failures <= 0) return interval;
	const cap = Math.max(interval, MAX_BACKOFF_MS);
	const grown = Math.min(cap, interval * 2 ** Math.min(failures, 30));
	const spread = Math.round(grown * 0.1 * random());
	const delay = Math.min(cap, grown + spread);
	const asked =
		retryAfter === undefined ? 0 : Math.min(LONGEST_SERVICE_WAIT_MS, Math.max(0, retryAfter));
	return Math.max(delay, asked);
}

/** Failed checks are reported (a failed execution, the error workflow) once they have lasted this long… */
export const REPORT_AFTER_MS = 60_000;
/** …and again at most this often while they go on. */
export const REPORT_EVERY_MS = 60 * 60_000;

/** Whether to report the current run of failures now. */
export function shouldReport(
	streak: { since: number; failures: number; lastReportAt?: number },
	now: number,
): boolean {
	if (streak.failures < 2 || now - streak.since < REPORT_AFTER_MS) return false;
	return streak.lastReportAt === undefined || now - streak.lastReportAt >= REPORT_EVERY_MS;
}

/**
 * The wait the service asked for, from an error thrown by a request, when it says: its whole
 * Retry-After (not the transport's 60 s cap), or until a spent quota resets. The one place that reads
 * the transport's error for it.
 */
export function serviceWaitOf(error: unknown, now = Date.now()): number | undefined {
	const seen = new Set<unknown>();
	for (let e = error as Record<string, unknown> | undefined; e && !seen.has(e); ) {
		seen.add(e);
		const fields = { ...e, ...(e.context as Record<string, unknown> | undefined) };
		const asked = [fields.askedWaitMs, fields.retryAfterMs].find(isWait);
		const untilReset = isWait(fields.quotaResetAt) ? fields.quotaResetAt - now : undefined;
		if (asked !== undefined || untilReset !== undefined)
			return Math.max(asked ?? 0, untilReset ?? 0);
		e = e.cause as Record<string, unknown> | undefined;
	}
	return undefined;
}

const isWait = (value: unknown): value is number =>
	typeof value === 'number' && Number.isFinite(value) && value >= 0;
