/** The rate-limit state a service announces in its headers; pure. docs/pacing.md#rate-limit-headers */
import {
	decimal,
	headerValue,
	MAX_WAIT_PER_RETRY_MS,
	serviceNow,
	type HeaderBag,
} from './retryAfter';

/** A reset this large is an epoch time (31 years of seconds): in seconds, or above EPOCH_MS_FROM in ms. */
const EPOCH_SECONDS_FROM = 1e9;
const EPOCH_MS_FROM = 1e12;

export interface RateLimitState {
	limit?: number;
	remaining: number;
	/** Not clamped: hourly quotas are real. */
	resetMs: number;
	/** The window's length, when a policy names it (`w=`). */
	windowMs?: number;
}

function resetToMs(reset: number, now: number): number {
	if (reset >= EPOCH_MS_FROM) return Math.max(0, reset - now);
	if (reset >= EPOCH_SECONDS_FROM) return Math.max(0, reset * 1000 - now);
	return reset * 1000;
}

const DURATION_UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A duration such as `1s`, `6m0s` or `59.5ms` (as OpenAI sends its resets), in milliseconds. */
function durationMs(text: string): number | undefined {
	// Checked whole first (short, anchored: linear): a hostile header costs nothing to refuse.
	if (text.length > 64 || !/^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/.test(text)) return undefined;
	let ms = 0;
	for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g))
		ms += Number(amount) * DURATION_UNIT_MS[unit];
	return ms;
}

function resetFieldMs(text: string | undefined, now: number): number | undefined {
	if (text === undefined) return undefined;
	const reset = decimal(text);
	return reset !== undefined ? resetToMs(reset, now) : durationMs(text);
}

/** `key=value` (drafts 05-07: `limit=`, `remaining=`, `reset=`; 08+: `;r=`, `;t=`, `;q=`). */
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

function listItems(field: string): string[] {
	return field
		.split(',')
		.map((item) => item.trim())
		.filter((item) => item !== '');
}

/** A draft 08+ item's name (`"day"`); '' for a draft 05-07 field. */
function itemName(item: string): string {
	return /^"?([a-z*][\w*.-]*)"?\s*(?:;|$)/i.exec(item)?.[1] ?? '';
}

/** Draft 08+'s `qu` may name another unit than requests (`"content-bytes"`). */
function countsRequests(policy: string | undefined): boolean {
	const unit = /;\s*qu="?([\w-]+)"?/i.exec(policy ?? '')?.[1];
	return unit === undefined || unit.toLowerCase() === 'requests';
}

/** The reported policy nearest to exhaustion (least remaining, then latest reset) that counts requests. */
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

/** The listed policy of the reported count: by name (08+), else quota, else the first windowed. docs/pacing.md#rate-limit-headers */
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

/** Drafts 01-07: `100;w=60`; 08+: `q=`. */
function quotaOf(policy: string): number | undefined {
	return leadingNumber(policy) ?? param(policy, 'q');
}

interface Reported {
	remaining: number | undefined;
	resetMs: number | undefined;
	limit: number | undefined;
	/** The reported policy's name (draft 08+), '' otherwise. */
	name: string;
	policies: string[];
}

/** One split form of the headers (FIELD_FORMS); `now` is the service's time. */
function fieldsForm(headers: HeaderBag, prefix: string, suffix: string, now: number): Reported {
	const field = (name: string) => headerValue(headers, `${prefix}${name}${suffix}`);
	const remaining = decimal(field('remaining'));
	// Discord's -Reset-After is relative, so a skewed clock does not move it: preferred to -Reset.
	const afterMs = suffix === '' ? resetFieldMs(field('reset-after'), now) : undefined;
	let resetMs = afterMs ?? resetFieldMs(field('reset'), now);
	const limitField = field('limit');
	const limit = leadingNumber(limitField);
	// OpenAI's budget is full again at its reset: the next request is due after one request's share.
	if (suffix !== '' && resetMs !== undefined && remaining !== undefined && limit)
		resetMs /= Math.max(1, limit - remaining);
	// Drafts 01-03 list the policies in the limit field itself: `100, 100;w=60`.
	return { remaining, resetMs, limit, name: '', policies: listItems(limitField ?? '') };
}

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

/** After the combined IETF `RateLimit`, in order: split IETF, X-RateLimit, Twitter's, OpenAI's budget. */
const FIELD_FORMS = [
	['ratelimit-', ''],
	['x-ratelimit-', ''],
	['x-rate-limit-', ''],
	['x-ratelimit-', '-requests'],
];

/** The first form giving both a remaining count and a reset; undefined without both. */
export function parseRateLimitHeaders(headers: HeaderBag, now: number): RateLimitState | undefined {
	const clock = serviceNow(headers, now);
	const policyField = headerValue(headers, 'ratelimit-policy');
	const listed = policyField !== undefined ? listItems(policyField) : [];
	const combined = headerValue(headers, 'ratelimit');
	const complete = (form?: Reported) => form?.remaining !== undefined && form.resetMs !== undefined;
	let reported = combined !== undefined ? combinedForm(combined, listed, clock) : undefined;
	for (const [prefix, suffix] of FIELD_FORMS) {
		if (complete(reported)) break;
		reported = fieldsForm(headers, prefix, suffix, clock);
	}
	if (reported?.remaining === undefined || reported.resetMs === undefined) return undefined;
	const { remaining, resetMs, name } = reported;
	const policy =
		describingPolicy(listed, name, reported.limit) ??
		describingPolicy(reported.policies, '', reported.limit);
	const quotaPolicy = policy ?? (name === '' ? listed[0] : undefined);
	const limit = reported.limit ?? (quotaPolicy !== undefined ? quotaOf(quotaPolicy) : undefined);
	const windowSeconds = policy !== undefined ? param(policy, 'w') : undefined;
	const state: RateLimitState = { remaining: Math.floor(remaining), resetMs: Math.max(0, resetMs) };
	if (limit !== undefined && limit > 0) state.limit = Math.floor(limit);
	if (windowSeconds !== undefined && windowSeconds > 0) state.windowMs = windowSeconds * 1000;
	return state;
}

/** A 403 with nothing remaining or a Retry-After (GitHub's limits) counts as a 429. */
export function refusalStatus(status: number, headers: HeaderBag, now: number): number {
	if (status !== 403) return status;
	const asksToWait = ['retry-after', 'retry-after-ms'].some(
		(name) => headerValue(headers, name) !== undefined,
	);
	const spent =
		parseRateLimitHeaders(headers, now)?.remaining === 0 ||
		FIELD_FORMS.some(
			([prefix, suffix]) => suffix === '' && headerValue(headers, `${prefix}remaining`) === '0',
		);
	return asksToWait || spent ? 429 : status;
}

/** The reset (epoch ms) of a quota spent beyond any wait (hourly, daily): waiting only delays the answer. */
export function spentQuotaResetAt(headers: HeaderBag, now: number): number | undefined {
	const state = parseRateLimitHeaders(headers, now);
	if (state?.remaining !== 0 || state.resetMs <= MAX_WAIT_PER_RETRY_MS) return undefined;
	return now + state.resetMs;
}
