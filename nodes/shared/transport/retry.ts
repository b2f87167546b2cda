/**
 * Pure: whether a failed attempt is repeated, and after how long. One function from the failure and
 * the attempts so far to "retry after N ms" or "give up", so the whole policy is tested without a network.
 */

export interface RetryPolicy {
	/** Attempts in all, the first one included, counting failures other than 429. */
	maxAttempts: number;
	/** How many 429 answers one request accepts. */
	maxRateLimited: number;
	/** The most a request waits between its attempts, summed. */
	maxTotalWaitMs: number;
	/** Backoff when the service names no wait: base * 2^(attempt-1), capped, with ±25% jitter. */
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

/**
 * - `status`: the service answered with an error status;
 * - `timeout`: no complete answer within the timeout;
 * - `dropped`: the connection broke after the request may have been sent;
 * - `unreachable`: no connection could be made (nothing was sent);
 * - `other`: the request failed inside n8n before reaching the network.
 */
export type FailureKind = 'status' | 'timeout' | 'dropped' | 'unreachable' | 'other';

export interface Failure {
	kind: FailureKind;
	status?: number;
	/** What the service asked us to wait (Retry-After), in ms, at most MAX_WAIT_PER_RETRY_MS. */
	retryAfterMs?: number;
	/** The same, as long as the service asked (for callers that wait between runs: the trigger). */
	askedWaitMs?: number;
	/** A 429 whose headers say the quota is spent until then (epoch ms), beyond any wait (spentQuotaResetAt). */
	quotaResetAt?: number;
	/** Network error code, e.g. ECONNRESET. */
	code?: string;
	message?: string;
}

/** What one request has been through so far. */
export interface Attempts {
	failures: number;
	rateLimited: number;
	waitedMs: number;
}

export type RetryDecision =
	| { retry: true; delayMs: number; rateLimited: boolean }
	| { retry: false; reason: 'not-retryable' | 'exhausted' | 'deadline' };

/**
 * Server errors worth repeating when repeating is safe: a 500 is as often a passing fault of one
 * instance as a bug (a read that fails on every attempt is reported after them all); 501 and 505 say the
 * request itself will never work.
 */
const RETRIED_STATUSES = [500, 502, 503, 504];

/** Whether a failure may be repeated at all: never when a POST may have reached the service. */
export function isRetryable(method: string, failure: Failure): boolean {
	// A wrong Base URL or a stopped service does not heal in seconds: say so at once, naming the URL.
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

/**
 * The decision after `failure`, given what happened before it (`attempts` does not yet count it).
 * A connection dropped on the first try is most often a stale keep-alive socket: retried at once.
 */
export function decideRetry(
	method: string,
	failure: Failure,
	attempts: Attempts,
	policy: RetryPolicy,
	random = Math.random,
): RetryDecision {
	if (!isRetryable(method, failure)) return { retry: false, reason: 'not-retryable' };
	// A quota spent for an hour or a day: waiting a minute at a time only delays the same answer.
	if (failure.quotaResetAt !== undefined) return { retry: false, reason: 'exhausted' };
	const rateLimited = failure.status === 429;
	const count = rateLimited ? attempts.rateLimited + 1 : attempts.failures + 1;
	if (count >= (rateLimited ? policy.maxRateLimited : policy.maxAttempts)) {
		return { retry: false, reason: 'exhausted' };
	}
	const firstDrop = failure.kind === 'dropped' && count === 1;
	let delayMs = failure.retryAfterMs ?? (firstDrop ? 0 : backoffMs(count, policy, random));
	// A hint the same request already waited out and was refused again proved too short (a window
	// still closed after `Retry-After: 0`): from then on the backoff is its floor. docs/pacing.md#bounds
	if (rateLimited && count > 1 && failure.retryAfterMs !== undefined)
		delayMs = Math.max(delayMs, backoffMs(count, policy, random));
	if (attempts.waitedMs + delayMs > policy.maxTotalWaitMs)
		return { retry: false, reason: 'exhausted' };
	return { retry: true, delayMs, rateLimited };
}
