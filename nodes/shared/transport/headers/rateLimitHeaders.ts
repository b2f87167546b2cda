/**
 * The rate-limit state a service announces in its headers (X-RateLimit-*, RateLimit-*, the IETF
 * drafts' RateLimit and RateLimit-Policy, OpenAI's request budget). Pure: the current time is a
 * parameter (epoch milliseconds, as Date.now()).
 */
import {
	decimal,
	headerValue,
	MAX_WAIT_PER_RETRY_MS,
	serviceNow,
	type HeaderBag,
} from './retryAfter';

/**
 * A reset above this is not a delay in seconds (that would be 31 years) but an epoch time: in seconds
 * (as GitHub and Twitter send it), or in milliseconds above EPOCH_MS_FROM.
 */
export const EPOCH_SECONDS_FROM = 1e9;
export const EPOCH_MS_FROM = 1e12;

export interface RateLimitState {
	/** Requests allowed per window, when the service says. */
	limit?: number;
	/** Requests left in the current window. */
	remaining: number;
	/** Milliseconds until the window resets (not clamped: hourly quotas are real). */
	resetMs: number;
	/** The window's length, when the service names it (`w=` of RateLimit-Policy). */
	windowMs?: number;
}

/** A reset: delta seconds, or an epoch time when large (see EPOCH_SECONDS_FROM). */
function resetToMs(reset: number, now: number): number {
	if (reset >= EPOCH_MS_FROM) return Math.max(0, reset - now);
	if (reset >= EPOCH_SECONDS_FROM) return Math.max(0, reset * 1000 - now);
	return reset * 1000;
}

const DURATION_UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A duration such as `1s`, `6m0s` or `59.5ms` (as OpenAI sends its resets), in milliseconds. */
function durationMs(text: string): number | undefined {
	// Checked whole first (short, anchored: linear), so a hostile header costs nothing to refuse.
	if (text.length > 64 || !/^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/.test(text)) return undefined;
	let ms = 0;
	for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g))
		ms += Number(amount) * DURATION_UNIT_MS[unit];
	return ms;
}

/** A reset field: a number (see resetToMs) or a duration. */
function resetFieldMs(text: string | undefined, now: number): number | undefined {
	if (text === undefined) return undefined;
	const reset = decimal(text);
	return reset !== undefined ? resetToMs(reset, now) : durationMs(text);
}

/** `key=value` (IETF draft 05-07: `limit=`, `remaining=`, `reset=`) or `;key=value` (draft 08+: `r=`, `t=`, `q=`). */
function param(field: string, ...keys: string[]): number | undefined {
	for (const key of keys) {
		const match = new RegExp(`(?:^|[\\s,;])${key}=(\\d+(?:\\.\\d+)?)`, 'i').exec(field);
		if (match) return Number(match[1]);
	}
	return undefined;
}

/** The number a field starts with (`100` of `100;w=60`), if any. */
function leadingNumber(text: string | undefined): number | undefined {
	return decimal(/^\s*([\d.]+)/.exec(text ?? '')?.[1]);
}

/** The items of a structured-field list (draft 08+: `"minute";r=5;t=30, "day";r=900;t=3600`). */
function listItems(field: string): string[] {
	return field
		.split(',')
		.map((item) => item.trim())
		.filter((item) => item !== '');
}

/** A draft 08+ item's name (`"day"` or `day` before its parameters); '' for a draft 05-07 field. */
function itemName(item: string): string {
	return /^"?([a-z*][\w*.-]*)"?\s*(?:;|$)/i.exec(item)?.[1] ?? '';
}

/** Whether a policy counts requests: draft 08+'s `qu` names another unit (`"content-bytes"`) when not. */
function countsRequests(policy: string | undefined): boolean {
	const unit = /;\s*qu="?([\w-]+)"?/i.exec(policy ?? '')?.[1];
	return unit === undefined || unit.toLowerCase() === 'requests';
}

/**
 * The policy a RateLimit field reports that is nearest to exhaustion: the least remaining, and of
 * those the latest reset; a policy counting something other than requests (its RateLimit-Policy item
 * of the same name says so) is left out. Drafts 05-07 report one policy as comma-separated keys: the
 * field is that.
 */
function nearestToExhaustion(field: string, policies: string[]): string | undefined {
	if (/(?:^|[\s,;])remaining=/i.test(field)) return field;
	let nearest: { item: string; remaining: number; reset: number } | undefined;
	for (const item of listItems(field)) {
		const remaining = param(item, 'r');
		if (remaining === undefined) continue;
		if (!countsRequests(policies.find((policy) => itemName(policy) === itemName(item)))) continue;
		const reset = param(item, 't') ?? 0;
		if (
			nearest &&
			(remaining > nearest.remaining || (remaining === nearest.remaining && reset <= nearest.reset))
		)
			continue;
		nearest = { item, remaining, reset };
	}
	return nearest?.item;
}

/**
 * Of the policies a service lists (RateLimit-Policy, or a limit field such as `50, 10;w=1, 50;w=60`),
 * the one describing the reported count: the one of the same name (draft 08+; none when no policy has
 * that name), else the one naming a window whose quota is the reported limit, else the first naming a
 * window. Another policy's window would pace by the wrong one: a per-second limit read for a
 * per-minute quota is 60 times too fast.
 */
function describingPolicy(
	policies: string[],
	name: string,
	limit: number | undefined,
): string | undefined {
	if (name !== '') return policies.find((item) => itemName(item) === name);
	const windows = policies.filter((item) => param(item, 'w') !== undefined);
	if (limit === undefined) return windows[0];
	return windows.find((item) => quotaOf(item) === limit);
}

/** A policy's quota: its leading number (drafts 01-07: `100;w=60`) or `q=` (draft 08+). */
function quotaOf(policy: string): number | undefined {
	return leadingNumber(policy) ?? param(policy, 'q');
}

/** What one form of the headers says: the count, and the policies listed beside it. */
interface Reported {
	remaining: number | undefined;
	resetMs: number | undefined;
	limit: number | undefined;
	/** The reported policy's name (draft 08+), '' otherwise. */
	name: string;
	policies: string[];
}

/**
 * The count as one form of the headers reports it, `prefix` and `suffix` naming its fields
 * (`x-ratelimit-` and `-requests` for OpenAI's). `now` is the service's time (serviceNow).
 */
function fieldsForm(headers: HeaderBag, prefix: string, suffix: string, now: number): Reported {
	const field = (name: string) => headerValue(headers, `${prefix}${name}${suffix}`);
	const remaining = decimal(field('remaining'));
	// Discord's -Reset-After is relative, so a skewed clock does not move it: preferred to -Reset.
	const afterMs = suffix === '' ? resetFieldMs(field('reset-after'), now) : undefined;
	let resetMs = afterMs ?? resetFieldMs(field('reset'), now);
	const limitField = field('limit');
	const limit = leadingNumber(limitField);
	// A request budget (OpenAI) refills continuously and its reset is when it is full again: with the
	// limit known, the next request is due after the reset's share of one request.
	if (suffix !== '' && resetMs !== undefined && remaining !== undefined && limit)
		resetMs /= Math.max(1, limit - remaining);
	// Drafts 01-03 list the policies in the limit field itself: `100, 100;w=60`.
	return { remaining, resetMs, limit, name: '', policies: listItems(limitField ?? '') };
}

/** The combined IETF field (`RateLimit`), its policy nearest to exhaustion. */
function combinedForm(field: string, policies: string[], now: number): Reported | undefined {
	const nearest = nearestToExhaustion(field, policies);
	if (nearest === undefined) return undefined;
	const reset = param(nearest, 'reset', 't');
	return {
		remaining: param(nearest, 'remaining', 'r'),
		resetMs: reset === undefined ? undefined : resetToMs(reset, now),
		limit: param(nearest, 'limit'),
		name: itemName(nearest),
		policies: [], // its policies are RateLimit-Policy's
	};
}

/** The header forms read, in this order: split IETF, X-RateLimit, Twitter's, OpenAI's request budget. */
const FIELD_FORMS = [
	['ratelimit-', ''],
	['x-ratelimit-', ''],
	['x-rate-limit-', ''],
	['x-ratelimit-', '-requests'],
];

/**
 * The rate-limit state a service announces, from the first of these forms that gives both a remaining
 * count and a reset:
 * - the IETF fields `RateLimit: limit=100, remaining=50, reset=5` (or `"default";r=50;t=5`) with
 *   `RateLimit-Policy: 100;w=60` (or `"default";q=100;w=60`); of several policies, the one nearest
 *   to exhaustion (the least remaining, then the latest reset);
 * - the older split form `RateLimit-Limit` / `-Remaining` / `-Reset`;
 * - `X-RateLimit-Limit` / `-Remaining` / `-Reset` (`-Reset-After`, in seconds, preferred to `-Reset`),
 *   and Twitter's `X-Rate-Limit-*`;
 * - the request budget of `X-RateLimit-Limit-Requests` / `-Remaining-Requests` / `-Reset-Requests`
 *   (a reset such as `6m0s`, when the budget is full again; read as when the next request is due); a
 *   token budget (`-Tokens`) is not a count of requests and is left alone.
 * The window is the reported policy's own (describingPolicy), from RateLimit-Policy or a limit field
 * that lists policies. An epoch reset is read on the service's clock (serviceNow).
 * Undefined when remaining or reset is missing or malformed: without both there is nothing to pace by.
 */
export function parseRateLimitHeaders(headers: HeaderBag, now: number): RateLimitState | undefined {
	const clock = serviceNow(headers, now);
	const policyField = headerValue(headers, 'ratelimit-policy');
	const listed = policyField !== undefined ? listItems(policyField) : [];
	const combined = headerValue(headers, 'ratelimit');
	const forms = [
		() => (combined !== undefined ? combinedForm(combined, listed, clock) : undefined),
		...FIELD_FORMS.map(
			([prefix, suffix]) =>
				() =>
					fieldsForm(headers, prefix, suffix, clock),
		),
	];
	let reported: Reported | undefined;
	for (const form of forms) {
		reported = form();
		if (reported?.remaining !== undefined && reported.resetMs !== undefined) break;
	}
	if (reported?.remaining === undefined || reported.resetMs === undefined) return undefined;
	const { remaining, resetMs, name } = reported;
	const policy =
		describingPolicy(listed, name, reported.limit) ??
		describingPolicy(reported.policies, '', reported.limit);
	// Without a limit of its own, the count's limit is its policy's quota (or, unnamed, the first listed).
	const quotaPolicy = policy ?? (name === '' ? listed[0] : undefined);
	const limit = reported.limit ?? (quotaPolicy !== undefined ? quotaOf(quotaPolicy) : undefined);
	const windowSeconds = policy !== undefined ? param(policy, 'w') : undefined;
	const state: RateLimitState = { remaining: Math.floor(remaining), resetMs: Math.max(0, resetMs) };
	if (limit !== undefined && limit > 0) state.limit = Math.floor(limit);
	if (windowSeconds !== undefined && windowSeconds > 0) state.windowMs = windowSeconds * 1000;
	return state;
}

/**
 * The status an answer counts as. A 403 that says the rate limit refused it (nothing remaining in its
 * rate-limit headers, or a Retry-After: GitHub's primary and secondary limits) is a 429: waited for
 * and retried, paced, never reported as a permission error. A 403 without them stays a 403.
 */
export function refusalStatus(status: number, headers: HeaderBag, now: number): number {
	if (status !== 403) return status;
	const asksToWait =
		headerValue(headers, 'retry-after') !== undefined ||
		headerValue(headers, 'retry-after-ms') !== undefined;
	const spent =
		parseRateLimitHeaders(headers, now)?.remaining === 0 ||
		['x-ratelimit-remaining', 'x-rate-limit-remaining', 'ratelimit-remaining'].some(
			(name) => headerValue(headers, name) === '0',
		);
	return asksToWait || spent ? 429 : status;
}

/**
 * When a refusal's headers say the quota is spent (nothing remaining) until a reset further away than a
 * request ever waits (MAX_WAIT_PER_RETRY_MS: a daily or hourly quota), the epoch ms of that reset; else
 * undefined: waiting a minute at a time for it only delays the same answer, item by item.
 */
export function spentQuotaResetAt(headers: HeaderBag, now: number): number | undefined {
	const state = parseRateLimitHeaders(headers, now);
	if (state?.remaining !== 0 || state.resetMs <= MAX_WAIT_PER_RETRY_MS) return undefined;
	return now + state.resetMs;
}
