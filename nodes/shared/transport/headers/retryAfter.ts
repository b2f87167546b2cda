/**
 * How long a refused request waits before it is tried again, read from the 429's headers or body; the
 * header helpers the rate-limit headers' reading (rateLimitHeaders.ts) shares. Pure: the current time is
 * a parameter (epoch milliseconds, as Date.now()).
 *
 * Header names are matched case-insensitively (n8n hands them over lowercased); a value may be a
 * string, a number, or an array of them (a header sent twice): the first one is used.
 */

/** The longest wait a `Retry-After` may impose; a longer one (an hour, a date next week) is clamped. */
export const MAX_WAIT_PER_RETRY_MS = 60_000;

export type HeaderBag = Record<string, unknown> | undefined | null;

export function headerValue(headers: HeaderBag, name: string): string | undefined {
	if (!headers || typeof headers !== 'object') return undefined;
	for (const key of Object.keys(headers)) {
		if (key.toLowerCase() !== name) continue;
		let value = headers[key];
		if (Array.isArray(value)) value = value[0];
		if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
	}
	return undefined;
}

/** A non-negative decimal number, or undefined: signs, exponents, `Infinity` and text are refused. */
export function decimal(text: string | undefined): number | undefined {
	return text !== undefined && /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}

/** HTTP's three date forms (RFC 9110 5.6.7): IMF-fixdate, the obsolete RFC 850 and asctime forms. */
const IMF_FIXDATE = /^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i;
const RFC_850_DATE = /^[a-z]{6,9}, \d{2}-[a-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/i;
const ASCTIME_DATE = /^[a-z]{3} [a-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/i;

/**
 * An HTTP date (`Wed, 25 Nov 2026 10:00:00 GMT`) in epoch ms, or undefined. Only HTTP's own forms:
 * Date.parse alone reads nearly anything ("abc 5", "foo 2030") as some date.
 */
function httpDate(text: string | undefined): number | undefined {
	if (text === undefined) return undefined;
	let date = NaN;
	if (IMF_FIXDATE.test(text) || RFC_850_DATE.test(text)) date = Date.parse(text);
	else if (ASCTIME_DATE.test(text)) date = Date.parse(`${text} GMT`); // asctime is UTC, unmarked
	return Number.isNaN(date) ? undefined : date;
}

/** Our clock and the service's agree when they differ by less than this (the Date header's second, a trip). */
const CLOCKS_AGREE_MS = 2_000;

/**
 * The service's time now, for reading the absolute times it sends (an HTTP-date Retry-After, an epoch
 * reset): ours, unless its `Date` header shows its clock elsewhere (a host without NTP, a drifting
 * container), then its own: read on ours, a service's clock behind makes every date past, one ahead
 * every reset far. docs/pacing.md#bounds
 */
export function serviceNow(headers: HeaderBag, now: number): number {
	const served = httpDate(headerValue(headers, 'date'));
	if (served === undefined) return now;
	// The Date header truncates to the second: the service's time is within the second after it.
	const theirs = served + 500;
	return Math.abs(now - theirs) > CLOCKS_AGREE_MS ? theirs : now;
}

/**
 * Milliseconds to wait before retrying a request the service refused: `retry-after-ms`, else
 * `Retry-After` in (fractional) seconds or as an HTTP date (read on the service's clock, serviceNow).
 * Malformed (negative, text, a number inside a date-like mess) gives undefined, so the caller uses its
 * own backoff; so does a date not after the service's now (it says when it was, not how long to wait:
 * repeated at once, the request would spend its retries within the second); anything above
 * MAX_WAIT_PER_RETRY_MS is clamped to it.
 */
export function parseRetryAfter(
	headers: HeaderBag,
	now: number,
	maxMs = MAX_WAIT_PER_RETRY_MS,
): number | undefined {
	const clamp = (ms: number) => Math.min(maxMs, Math.max(0, Math.ceil(ms)));
	const milliseconds = decimal(headerValue(headers, 'retry-after-ms'));
	if (milliseconds !== undefined) return clamp(milliseconds);
	const retryAfter = headerValue(headers, 'retry-after');
	if (retryAfter === undefined || retryAfter === '') return undefined;
	const seconds = decimal(retryAfter);
	if (seconds !== undefined) return clamp(seconds * 1000);
	const date = httpDate(retryAfter);
	if (date === undefined) return undefined;
	const ms = date - serviceNow(headers, now);
	return ms > 0 ? clamp(ms) : undefined;
}

/** The bodies read for a retry hint are small error objects; a larger text is not parsed. */
const MAX_HINT_BODY_CHARS = 10_000;

/** A JSON body as an object: parsed when it came as text, undefined when it is not an object. */
function bodyObject(body: unknown): Record<string, unknown> | undefined {
	let value = body;
	if (typeof value === 'string' && value.length <= MAX_HINT_BODY_CHARS) {
		try {
			value = JSON.parse(value);
		} catch {
			return undefined;
		}
	}
	return value && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

const isWait = (value: unknown): value is number =>
	typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * The wait a 429 asks for: its headers (parseRetryAfter), else its JSON body's `retry_after_ms`
 * (Matrix) or `retry_after` in seconds, at the top (Discord) or under `parameters` (Telegram).
 */
export function retryHintMs(
	headers: HeaderBag,
	body: unknown,
	now: number,
	maxMs = MAX_WAIT_PER_RETRY_MS,
): number | undefined {
	const fromHeaders = parseRetryAfter(headers, now, maxMs);
	if (fromHeaders !== undefined) return fromHeaders;
	const object = bodyObject(body);
	const parameters = bodyObject(object?.parameters);
	const milliseconds = [object?.retry_after_ms].find(isWait);
	const seconds = [object?.retry_after, parameters?.retry_after].find(isWait);
	const ms = milliseconds ?? (seconds === undefined ? undefined : seconds * 1000);
	return ms === undefined ? undefined : Math.min(maxMs, Math.ceil(ms));
}
