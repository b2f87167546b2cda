/**
 * The rate-limit state a service announces in its headers (X-RateLimit-*, RateLimit-*, the IETF
 * drafts' RateLimit and RateLimit-Policy, OpenAI's request budget). Pure: the current time is a
 * parameter (epoch milliseconds, as Date.now()).
 */
import { decimal, headerValue, type HeaderBag } from './retryAfter';

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

/**
 * The policy a RateLimit field reports that is nearest to exhaustion: the least remaining, and of
 * those the latest reset. Drafts 05-07 report one policy as comma-separated keys: the field is that.
 */
function nearestToExhaustion(field: string): string {
	if (/(?:^|[\s,;])remaining=/i.test(field)) return field;
	let nearest: { item: string; remaining: number; reset: number } | undefined;
	for (const item of listItems(field)) {
		const remaining = param(item, 'r');
		if (remaining === undefined) continue;
		const reset = param(item, 't') ?? 0;
		if (
			nearest &&
			(remaining > nearest.remaining || (remaining === nearest.remaining && reset <= nearest.reset))
		)
			continue;
		nearest = { item, remaining, reset };
	}
	return nearest?.item ?? field;
}

/**
 * The RateLimit-Policy item describing the reported policy: the one of the same name (draft 08+; none
 * when no policy has that name), or whose quota is the reported limit (drafts 05-07: `100;w=60,
 * 5000;w=86400`), else the first.
 */
function matchingPolicy(
	field: string,
	name: string,
	limit: number | undefined,
): string | undefined {
	const items = listItems(field);
	if (name !== '') return items.find((item) => itemName(item) === name);
	return items.find((item) => limit !== undefined && leadingNumber(item) === limit) ?? items[0];
}

/**
 * The rate-limit state a service announces, from, in this order:
 * - the IETF fields `RateLimit: limit=100, remaining=50, reset=5` (or `"default";r=50;t=5`) with
 *   `RateLimit-Policy: 100;w=60` (or `"default";q=100;w=60`); of several policies, the one nearest
 *   to exhaustion (the least remaining, then the latest reset) with the window of its own policy;
 * - the older split form `RateLimit-Limit` / `-Remaining` / `-Reset`;
 * - `X-RateLimit-Limit` / `-Remaining` / `-Reset` (a limit such as `100, 100;w=60` names its window;
 *   `-Reset-After`, in seconds, preferred to `-Reset`);
 * - the request budget of `X-RateLimit-Limit-Requests` / `-Remaining-Requests` / `-Reset-Requests`
 *   (a reset such as `6m0s`, when the budget is full again; read as when the next request is due); a
 *   token budget (`-Tokens`) is not a count of requests and is left alone.
 * Undefined when remaining or reset is missing or malformed: without both there is nothing to pace by.
 */
export function parseRateLimitHeaders(headers: HeaderBag, now: number): RateLimitState | undefined {
	const policies = headerValue(headers, 'ratelimit-policy');
	const combined = headerValue(headers, 'ratelimit');
	let limit: number | undefined;
	let remaining: number | undefined;
	let resetMs: number | undefined;
	let policy = policies;
	if (combined !== undefined) {
		const nearest = nearestToExhaustion(combined);
		remaining = param(nearest, 'remaining', 'r');
		const reset = param(nearest, 'reset', 't');
		resetMs = reset === undefined ? undefined : resetToMs(reset, now);
		limit = param(nearest, 'limit');
		if (policies !== undefined) policy = matchingPolicy(policies, itemName(nearest), limit);
	}
	let windowSeconds = policy !== undefined ? param(policy, 'w') : undefined;
	const fields = [
		['ratelimit-', ''],
		['x-ratelimit-', ''],
		['x-ratelimit-', '-requests'],
	];
	for (const [prefix, suffix] of fields) {
		if (remaining !== undefined && resetMs !== undefined) break;
		const field = (name: string) => headerValue(headers, `${prefix}${name}${suffix}`);
		remaining = decimal(field('remaining'));
		// Discord's -Reset-After is relative, so a skewed local clock does not move it: preferred to -Reset.
		const afterMs = suffix === '' ? resetFieldMs(field('reset-after'), now) : undefined;
		resetMs = afterMs ?? resetFieldMs(field('reset'), now);
		const limitField = field('limit');
		limit = leadingNumber(limitField);
		windowSeconds ??= limitField !== undefined ? param(limitField, 'w') : undefined;
		// A request budget (OpenAI) refills continuously and its reset is when it is full again: with the
		// limit known, the next request is due after the reset's share of one request.
		if (suffix !== '' && resetMs !== undefined && remaining !== undefined && limit)
			resetMs /= Math.max(1, limit - remaining);
	}
	if (remaining === undefined || resetMs === undefined) return undefined;
	if (policy !== undefined) limit ??= leadingNumber(policy) ?? param(policy, 'q');
	const state: RateLimitState = {
		remaining: Math.floor(remaining),
		resetMs: Math.max(0, resetMs),
	};
	if (limit !== undefined && limit > 0) state.limit = Math.floor(limit);
	if (windowSeconds !== undefined && windowSeconds > 0) state.windowMs = windowSeconds * 1000;
	return state;
}
