/** Pure: whether a failed attempt is repeated, and after how long. */

export interface RetryPolicy {
	/** Attempts in all, counting failures other than 429. */
	maxAttempts: number;
	maxRateLimited: number;
	/** Summed waits between a request's attempts. */
	maxTotalWaitMs: number;
	/** Without a named wait: base * 2^(attempt-1), capped, ±25% jitter. */
	baseDelayMs: number;
	maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
	maxAttempts: 6,
	maxRateLimited: 12,
	maxTotalWaitMs: 60_000,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
};

export interface Failure {
	/** `dropped`: after the request may have been sent; `unreachable`: nothing sent; `other`: inside n8n. */
	kind: 'status' | 'timeout' | 'dropped' | 'unreachable' | 'other';
	status?: number;
	/** What the service asked to wait, ms, at most MAX_WAIT_PER_RETRY_MS. */
	retryAfterMs?: number;
	/** The same unclamped, for the trigger, which waits between checks. */
	askedWaitMs?: number;
	/** A quota spent until then (epoch ms), beyond any wait. */
	quotaResetAt?: number;
	code?: string;
	message?: string;
}

export interface Attempts {
	failures: number;
	rateLimited: number;
	waitedMs: number;
}

/** `exhausted` comes only after a fault of the service (a 429, a 5xx, no answer): isRetryable lets no other through. */
export type RetryDecision =
	| { retry: true; delayMs: number; rateLimited: boolean }
	| { retry: false; reason: 'not-retryable' | 'exhausted' | 'deadline' };

/** A 500 is as often a passing fault as a bug; 501 and 505 never work. */
const RETRIED_STATUSES = [500, 502, 503, 504];

/** Whether a failure may be repeated at all: never when a POST may have reached the service. */
export function isRetryable(method: string, failure: Failure): boolean {
	// A wrong Base URL or a stopped service does not heal in seconds.
	if (failure.kind === 'unreachable' || failure.kind === 'other') return false;
	if (failure.status === 429) return true; // rejected by the rate limiter, not processed
	const idempotent = method !== 'POST';
	if (failure.kind === 'dropped' || failure.kind === 'timeout') return idempotent;
	return idempotent && RETRIED_STATUSES.includes(failure.status ?? 0);
}

export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
	const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(exponential * (0.75 + random() * 0.5));
}

/** Under a deadline, a rate-limited request's last try leaves this long (or half what is left) for its answer. */
const LAST_TRY_MS = 1_000;

/** The decision after `failure` (`attempts` does not count it yet), never to retry past `deadline`. */
export function decideRetry(
	method: string,
	failure: Failure,
	attempts: Attempts,
	policy: RetryPolicy,
	random = Math.random,
	deadline?: number,
	now = Date.now(),
): RetryDecision {
	if (!isRetryable(method, failure)) return { retry: false, reason: 'not-retryable' };
	if (failure.quotaResetAt !== undefined) return { retry: false, reason: 'exhausted' };
	const rateLimited = failure.status === 429;
	const count = rateLimited ? attempts.rateLimited + 1 : attempts.failures + 1;
	if (count >= (rateLimited ? policy.maxRateLimited : policy.maxAttempts))
		return { retry: false, reason: 'exhausted' };
	// A first drop is most often a stale keep-alive socket: retried at once.
	const firstDrop = failure.kind === 'dropped' && count === 1;
	let delayMs = failure.retryAfterMs ?? (firstDrop ? 0 : backoffMs(count, policy, random));
	// A hint waited out and refused again proved too short: the backoff is its floor. docs/pacing.md#bounds
	if (rateLimited && count > 1 && failure.retryAfterMs !== undefined)
		delayMs = Math.max(delayMs, backoffMs(count, policy, random));
	if (attempts.waitedMs + delayMs > policy.maxTotalWaitMs)
		return { retry: false, reason: 'exhausted' };
	if (deadline === undefined || now + delayMs < deadline)
		return { retry: true, delayMs, rateLimited };
	// A 429's wait is cut to a last try before the deadline instead. docs/pacing.md#bounds
	const lastTry = deadline - Math.min(LAST_TRY_MS, (deadline - now) / 2);
	if (rateLimited && lastTry > now)
		return { retry: true, delayMs: Math.floor(lastTry - now), rateLimited };
	return { retry: false, reason: 'deadline' };
}
