/** How long a refused request waits, from the 429's headers or body; pure. docs/pacing.md#bounds */

/** The longest wait a `Retry-After` may impose; a longer one is clamped. */
export const MAX_WAIT_PER_RETRY_MS = 60_000;

export type HeaderBag = Record<string, unknown> | undefined | null;

/** Case-insensitive; of a header sent twice (an array), the first. */
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

/** A non-negative decimal; signs, exponents, `Infinity` and text are refused. */
export function decimal(text: string | undefined): number | undefined {
	return text !== undefined && /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}

/** HTTP's date forms (RFC 9110 5.6.7): IMF-fixdate, the obsolete RFC 850, and asctime (UTC, unmarked). */
const HTTP_DATES = [
	/^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i,
	/^[a-z]{6,9}, \d{2}-[a-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/i,
	/^[a-z]{3} [a-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/i,
];

/** Epoch ms; NaN unless in one of HTTP's own forms: Date.parse alone reads "abc 5" as 2005. */
function httpDate(text = ''): number {
	if (!HTTP_DATES.some((form) => form.test(text))) return NaN;
	return Date.parse(/GMT$/i.test(text) ? text : `${text} GMT`);
}

/** Our clock and the service's agree when they differ by less than this (the Date header's second, a trip). */
const CLOCKS_AGREE_MS = 2_000;

/** The service's time, to read the dates it sends: ours unless its `Date` header is off. docs/pacing.md#bounds */
export function serviceNow(headers: HeaderBag, now: number): number {
	const served = httpDate(headerValue(headers, 'date'));
	if (Number.isNaN(served)) return now;
	// The Date header truncates to the second: the service's time is within the second after it.
	const theirs = served + 500;
	return Math.abs(now - theirs) > CLOCKS_AGREE_MS ? theirs : now;
}

/** `retry-after-ms`, else `Retry-After` (seconds or HTTP date), clamped; malformed or past: undefined. docs/pacing.md#bounds */
export function parseRetryAfter(
	headers: HeaderBag,
	now: number,
	maxMs = MAX_WAIT_PER_RETRY_MS,
): number | undefined {
	const clamp = (ms: number) => Math.min(maxMs, Math.ceil(ms));
	const milliseconds = decimal(headerValue(headers, 'retry-after-ms'));
	if (milliseconds !== undefined) return clamp(milliseconds);
	const retryAfter = headerValue(headers, 'retry-after');
	const seconds = decimal(retryAfter);
	if (seconds !== undefined) return clamp(seconds * 1000);
	const ms = httpDate(retryAfter) - serviceNow(headers, now);
	return ms > 0 ? clamp(ms) : undefined;
}

/** A retry hint's body is a small error object; a larger text is not parsed. */
const MAX_HINT_BODY_CHARS = 10_000;

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

/** A 429 body's wait: its path, and ms per unit (Matrix, Discord, Telegram). */
const BODY_HINTS: Array<[string[], number]> = [
	[['retry_after_ms'], 1],
	[['retry_after'], 1000],
	[['parameters', 'retry_after'], 1000],
];

/** The wait a 429 asks for: its headers, else its JSON body (BODY_HINTS). */
export function retryHintMs(
	headers: HeaderBag,
	body: unknown,
	now: number,
	maxMs = MAX_WAIT_PER_RETRY_MS,
): number | undefined {
	const fromHeaders = parseRetryAfter(headers, now, maxMs);
	if (fromHeaders !== undefined) return fromHeaders;
	for (const [path, unitMs] of BODY_HINTS) {
		const value = path.reduce<unknown>((at, key) => bodyObject(at)?.[key], body);
		if (typeof value === 'number' && Number.isFinite(value) && value >= 0)
			return Math.min(maxMs, Math.ceil(value * unitMs));
	}
	return undefined;
}
