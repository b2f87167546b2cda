/**
 * How long a refused request waits before it is tried again, read from the 429's headers or body; the
 * header helpers the rate-limit headers' reading (rateLimitHeaders.ts) shares. Pure: the current time is
 * a parameter (epoch milliseconds, as Date.now()).
 *
 * Header names are matched case-insensitively (n8n hands them over lowercased); a value may be a
 * string, a number, or an array of them (a header sent twice): the first one is used.
 */

/** The longest wait a `Retry-After` may impose; a longer one (an hour, a date next week) is clamped. */
export const MAX_RETRY_AFTER_MS = 60_000;

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

/**
 * Milliseconds to wait before retrying a request the service refused: `retry-after-ms`, else
 * `Retry-After` in (fractional) seconds or as an HTTP date. Malformed (negative, text, a number
 * inside a date-like mess) gives undefined, so the caller uses its own backoff; a date in the past
 * gives 0; anything above MAX_RETRY_AFTER_MS is clamped to it.
 */
export function parseRetryAfter(headers: HeaderBag, now: number): number | undefined {
	const clamp = (ms: number) => Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.ceil(ms)));
	const milliseconds = decimal(headerValue(headers, 'retry-after-ms'));
	if (milliseconds !== undefined) return clamp(milliseconds);
	const retryAfter = headerValue(headers, 'retry-after');
	if (retryAfter === undefined || retryAfter === '') return undefined;
	const seconds = decimal(retryAfter);
	if (seconds !== undefined) return clamp(seconds * 1000);
	// Date.parse also reads bare numbers ("-5" is a year): an HTTP date always names its month.
	if (!/[a-z]{3}/i.test(retryAfter)) return undefined;
	const date = Date.parse(retryAfter);
	return Number.isNaN(date) ? undefined : clamp(date - now);
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
export function retryHintMs(headers: HeaderBag, body: unknown, now: number): number | undefined {
	const fromHeaders = parseRetryAfter(headers, now);
	if (fromHeaders !== undefined) return fromHeaders;
	const object = bodyObject(body);
	const parameters = bodyObject(object?.parameters);
	const milliseconds = [object?.retry_after_ms].find(isWait);
	const seconds = [object?.retry_after, parameters?.retry_after].find(isWait);
	const ms = milliseconds ?? (seconds === undefined ? undefined : seconds * 1000);
	return ms === undefined ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.ceil(ms));
}
