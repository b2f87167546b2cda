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

function resetToMs(reset: number | undefined, now: number): number | undefined {
	if (reset === undefined) return undefined;
	if (reset >= EPOCH_MS_FROM) return Math.max(0, reset - now);
	if (reset >= EPOCH_SECONDS_FROM) return Math.max(0, reset * 1000 - now);
	return reset * 1000;
}

const DURATION_UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A duration such as `1s`, `6m0s` or `59.5ms` (as OpenAI sends its resets), in milliseconds. */
function durationMs(text = ''): number | undefined {
	// Checked whole first (short, anchored: linear): a hostile header costs nothing to refuse.
	if (text.length > 64 || !/^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/.test(text)) return undefined;
	let ms = 0;
	for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g))
		ms += Number(amount) * DURATION_UNIT_MS[unit];
	return ms;
}

/** `key=value` (drafts 05-07: `limit=`, `remaining=`, `reset=`; 08+: `;r=`, `;t=`, `;q=`). */
function param(field = '', ...keys: string[]): number | undefined {
	for (const key of keys) {
		const match = new RegExp(`(?:^|[\\s,;])${key}=(\\d+(?:\\.\\d+)?)`, 'i').exec(field);
		if (match) return Number(match[1]);
	}
	return undefined;
}

/** The number a field starts with (`100` of `100;w=60`), if any. */
function leadingNumber(text = ''): number | undefined {
	return decimal(/^\s*([\d.]+)/.exec(text)?.[1]);
}

/** A list's items (`100, 100;w=60`); none of a field not sent. */
function listItems(field = ''): string[] {
	return field
		.split(',')
		.map((item) => item.trim())
		.filter(Boolean);
}

/** A draft 08+ item's name (`"day"`); '' for a draft 05-07 field. */
function itemName(item: string): string {
	return /^"?([a-z*][\w*.-]*)"?\s*(?:;|$)/i.exec(item)?.[1] ?? '';
}

/** The reported policy nearest to exhaustion (least remaining, then latest reset) that counts requests. */
function nearestToExhaustion(field: string, policies: string[]): string | undefined {
	if (/(?:^|[\s,;])remaining=/i.test(field)) return field;
	let nearest: { item: string; remaining: number; reset: number } | undefined;
	for (const item of listItems(field)) {
		const remaining = param(item, 'r');
		const policy = policies.find((policy) => itemName(policy) === itemName(item)) ?? '';
		// Draft 08+'s `qu` may name another unit than requests (`"content-bytes"`).
		const unit = /;\s*qu="?([\w-]+)"?/i.exec(policy)?.[1]?.toLowerCase() ?? 'requests';
		if (remaining === undefined || unit !== 'requests') continue;
		const reset = param(item, 't') ?? 0;
		const laterReset = remaining === nearest?.remaining && reset > nearest.reset;
		if (!nearest || remaining < nearest.remaining || laterReset)
			nearest = { item, remaining, reset };
	}
	return nearest?.item;
}

/** Drafts 01-07: `100;w=60`; 08+: `q=`. */
function quotaOf(policy = ''): number | undefined {
	return leadingNumber(policy) ?? param(policy, 'q');
}

/** OpenAI's request budget: no -Reset-After, and its reset is when the whole budget is full again. */
const OPENAI_BUDGET = 'x-ratelimit-*-requests';
/** After the combined IETF `RateLimit`, in order (`*` the field's name): split IETF, X-RateLimit, Twitter's, OpenAI's. */
const FIELD_FORMS = ['ratelimit-*', 'x-ratelimit-*', 'x-rate-limit-*', OPENAI_BUDGET];

/** A form's state (present only with both a count and a reset), its policy's name (08+, else '') and its own list of policies. */
type Reported = RateLimitState & { name: string; policies: string[] };

/** One split form of the headers (FIELD_FORMS); `now` is the service's time. */
function fieldsForm(headers: HeaderBag, form: string, now: number): Reported | undefined {
	const field = (name: string) => headerValue(headers, form.replace('*', name));
	const reset = (name: string) => resetToMs(decimal(field(name)), now) ?? durationMs(field(name));
	const remaining = decimal(field('remaining'));
	const budget = form === OPENAI_BUDGET;
	// Discord's -Reset-After is relative, so a skewed clock does not move it: preferred to -Reset.
	let resetMs = (budget ? undefined : reset('reset-after')) ?? reset('reset');
	if (remaining === undefined || resetMs === undefined) return undefined;
	const limitField = field('limit');
	const limit = leadingNumber(limitField);
	// OpenAI's budget is full again at its reset: the next request is due after one request's share.
	if (budget && limit) resetMs /= Math.max(1, limit - remaining);
	// Drafts 01-03 list the policies in the limit field itself: `100, 100;w=60`.
	return { remaining, resetMs, limit, name: '', policies: listItems(limitField) };
}

function combinedForm(field = '', policies: string[], now: number): Reported | undefined {
	const nearest = nearestToExhaustion(field, policies) ?? '';
	const remaining = param(nearest, 'remaining', 'r');
	const resetMs = resetToMs(param(nearest, 'reset', 't'), now);
	if (remaining === undefined || resetMs === undefined) return undefined;
	return {
		remaining,
		resetMs,
		limit: param(nearest, 'limit'),
		name: itemName(nearest),
		policies: [], // its policies are RateLimit-Policy's
	};
}

/** The first form giving both a remaining count and a reset; undefined without both. */
export function parseRateLimitHeaders(headers: HeaderBag, now: number): RateLimitState | undefined {
	const clock = serviceNow(headers, now);
	const listed = listItems(headerValue(headers, 'ratelimit-policy'));
	let reported = combinedForm(headerValue(headers, 'ratelimit'), listed, clock);
	for (const form of FIELD_FORMS) reported ??= fieldsForm(headers, form, clock);
	if (reported === undefined) return undefined;
	const { remaining, resetMs, name } = reported;
	// The reported count's policy: by name (08+), else the first windowed one of its quota. docs/pacing.md#rate-limit-headers
	const ofQuota = (item: string) =>
		param(item, 'w') !== undefined &&
		(reported.limit === undefined || quotaOf(item) === reported.limit);
	const policy =
		name !== ''
			? listed.find((item) => itemName(item) === name)
			: [...listed, ...reported.policies].find(ofQuota);
	const limit = reported.limit ?? quotaOf(policy ?? (name === '' ? listed[0] : undefined));
	const windowSeconds = param(policy, 'w');
	const state: RateLimitState = { remaining: Math.floor(remaining), resetMs: Math.max(0, resetMs) };
	if (limit !== undefined && limit > 0) state.limit = Math.floor(limit);
	if (windowSeconds !== undefined && windowSeconds > 0) state.windowMs = windowSeconds * 1000;
	return state;
}

/** A 403 with nothing remaining or a Retry-After (GitHub's limits) counts as a 429. */
export function refusalStatus(status: number, headers: HeaderBag, now: number): number {
	if (status !== 403) return status;
	const sent = (name: string) => headerValue(headers, name);
	if (sent('retry-after') !== undefined || sent('retry-after-ms') !== undefined) return 429;
	const spent = (form: string) =>
		form !== OPENAI_BUDGET && sent(form.replace('*', 'remaining')) === '0';
	if (FIELD_FORMS.some(spent)) return 429;
	return parseRateLimitHeaders(headers, now)?.remaining === 0 ? 429 : status;
}

/** The reset (epoch ms) of a quota spent beyond any wait (hourly, daily): waiting only delays the answer. */
export function spentQuotaResetAt(headers: HeaderBag, now: number): number | undefined {
	const state = parseRateLimitHeaders(headers, now);
	if (state?.remaining !== 0 || state.resetMs <= MAX_WAIT_PER_RETRY_MS) return undefined;
	return now + state.resetMs;
}
