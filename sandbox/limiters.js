'use strict';
/**
 * The sandbox's rate limiters, shaped as real services shape theirs, and the headers they answer with.
 * Pure state machines over an injected monotonic clock (milliseconds), so tests can step time.
 *
 *   token-bucket   `perSecond` tokens a second, up to `burst` saved (the sandbox's original limiter)
 *   fixed-window   `limit` requests per `windowMs`, counted in windows aligned to the clock, reset at each end
 *   sliding-window `limit` requests in any trailing `windowMs` (a log of the admitted requests)
 *   concurrency    at most `limit` requests in flight (admitted on arrival, released when answered)
 */

const SHAPES = ['token-bucket', 'fixed-window', 'sliding-window', 'concurrency'];
const RETRY_AFTER_FORMS = ['seconds', 'http-date', 'ms', 'body', 'none'];
const HEADER_FORMS = [
	'none',
	'x-ratelimit',
	'x-ratelimit-epoch',
	'x-ratelimit-reset-after',
	'x-ratelimit-requests',
	'ietf',
	'ietf-draft-07',
];

/** Milliseconds as a duration such as `1m30s` or `250ms` (OpenAI's resets). */
function duration(ms) {
	const whole = Math.max(0, Math.ceil(ms));
	if (whole < 1000) return `${whole}ms`;
	const minutes = Math.floor(whole / 60_000);
	const seconds = (whole % 60_000) / 1000;
	return `${minutes > 0 ? `${minutes}m` : ''}${seconds}s`;
}

/**
 * @param {object} spec `{shape, perSecond, burst, limit, windowMs, retryAfterMs, retryAfter, headers, clock}`
 * @returns the limiter, or null when `spec` is null/false
 */
/**
 * @typedef {object} Limiter
 * @property {string} shape
 * @property {string} retryAfter
 * @property {string} headers
 * @property {() => number} clock
 * @property {(now: number) => { allowed: boolean, waitMs: number }} take
 * @property {(now: number) => { limit: number, remaining: number, resetMs: number, windowMs: number | undefined }} state
 * @property {() => boolean} [acquire] the concurrency cap's admission on arrival
 * @property {() => void} [release] the concurrency cap's slot given back
 * @property {number} [retryAfterMs] the concurrency cap's wait hint
 */

/** @returns {Limiter | null} */
function createLimiter(spec) {
	if (!spec) return null;
	const shape = spec.shape ?? 'token-bucket';
	if (!SHAPES.includes(shape))
		throw new Error(`rateLimit.shape is one of ${SHAPES.join(', ')}; got ${shape}`);
	// Today's token bucket keeps its precise hint (`retry-after-ms`); the other shapes answer as most services do.
	const retryAfter = spec.retryAfter ?? (shape === 'token-bucket' ? 'ms' : 'seconds');
	if (!RETRY_AFTER_FORMS.includes(retryAfter)) {
		throw new Error(
			`rateLimit.retryAfter is one of ${RETRY_AFTER_FORMS.join(', ')}; got ${retryAfter}`,
		);
	}
	const headers = spec.headers ?? 'none';
	if (!HEADER_FORMS.includes(headers))
		throw new Error(`rateLimit.headers is one of ${HEADER_FORMS.join(', ')}; got ${headers}`);
	const clock = spec.clock ?? (() => performance.now());
	const positive = (name, value) => {
		if (!(typeof value === 'number' && value > 0))
			throw new Error(`rateLimit.${name} must be a positive number; got ${value}`);
		return value;
	};
	let core;
	if (shape === 'token-bucket') {
		const perSecond = positive('perSecond', spec.perSecond);
		core = tokenBucket(perSecond, positive('burst', spec.burst ?? perSecond));
	} else if (shape === 'concurrency') {
		core = concurrencyCap(positive('limit', spec.limit), spec.retryAfterMs ?? 1000);
	} else {
		const limit = positive('limit', spec.limit);
		const windowMs = positive('windowMs', spec.windowMs ?? 1000);
		core = shape === 'fixed-window' ? fixedWindow(limit, windowMs) : slidingWindow(limit, windowMs);
	}
	return { shape, retryAfter, headers, clock, ...core };
}

/** Each core: `take(now)` → `{allowed, waitMs}` and `state(now)` → `{limit, remaining, resetMs, windowMs}`. */
function tokenBucket(perSecond, burst) {
	let tokens = burst;
	let last;
	const refill = (now) => {
		if (last !== undefined) tokens = Math.min(burst, tokens + ((now - last) / 1000) * perSecond);
		last = now;
	};
	return {
		take(now) {
			refill(now);
			if (tokens >= 1) {
				tokens -= 1;
				return { allowed: true, waitMs: 0 };
			}
			return { allowed: false, waitMs: ((1 - tokens) / perSecond) * 1000 };
		},
		state(now) {
			refill(now);
			// Reset: until the bucket is full again.
			return {
				limit: burst,
				remaining: Math.floor(tokens),
				resetMs: ((burst - tokens) / perSecond) * 1000,
				windowMs: (burst / perSecond) * 1000,
			};
		},
	};
}

function fixedWindow(limit, windowMs) {
	let windowStart = -Infinity;
	let count = 0;
	const roll = (now) => {
		const start = Math.floor(now / windowMs) * windowMs;
		if (start !== windowStart) {
			windowStart = start;
			count = 0;
		}
	};
	return {
		take(now) {
			roll(now);
			if (count < limit) {
				count += 1;
				return { allowed: true, waitMs: 0 };
			}
			return { allowed: false, waitMs: windowStart + windowMs - now };
		},
		state(now) {
			roll(now);
			return { limit, remaining: limit - count, resetMs: windowStart + windowMs - now, windowMs };
		},
	};
}

function slidingWindow(limit, windowMs) {
	const admitted = []; // start times of the admitted requests still inside the window, oldest first
	const expire = (now) => {
		while (admitted.length > 0 && admitted[0] <= now - windowMs) admitted.shift();
	};
	return {
		take(now) {
			expire(now);
			if (admitted.length < limit) {
				admitted.push(now);
				return { allowed: true, waitMs: 0 };
			}
			return { allowed: false, waitMs: admitted[0] + windowMs - now };
		},
		state(now) {
			expire(now);
			// Reset: until the oldest request in the window leaves it, freeing one slot.
			return {
				limit,
				remaining: limit - admitted.length,
				resetMs: admitted.length ? admitted[0] + windowMs - now : 0,
				windowMs,
			};
		},
	};
}

function concurrencyCap(limit, retryAfterMs) {
	let inFlight = 0;
	return {
		/** On arrival: whether the request gets a slot (it must then `release()` it once answered). */
		acquire() {
			if (inFlight >= limit) return false;
			inFlight += 1;
			return true;
		},
		release() {
			inFlight = Math.max(0, inFlight - 1);
		},
		take() {
			throw new Error('a concurrency cap admits on arrival (acquire/release)');
		},
		state() {
			return { limit, remaining: Math.max(0, limit - inFlight), resetMs: 0, windowMs: undefined };
		},
		retryAfterMs,
	};
}

/** The `Retry-After` headers of a 429 that says "wait `waitMs`", in the limiter's form. */
function retryAfterHeaders(form, waitMs, wallClockMs = Date.now()) {
	const ms = Math.max(0, waitMs);
	if (form === 'none' || form === 'body') return {};
	if (form === 'http-date')
		return { 'retry-after': new Date(Math.ceil((wallClockMs + ms) / 1000) * 1000).toUTCString() };
	const seconds = { 'retry-after': String(Math.ceil(ms / 1000)) };
	return form === 'ms' ? { ...seconds, 'retry-after-ms': String(Math.round(ms)) } : seconds;
}

/** The body fields of a 429 that says "wait `waitMs`": Discord's `retry_after` in seconds, in the `body` form only. */
function retryAfterBody(form, waitMs) {
	return form === 'body' ? { retry_after: Number((Math.max(0, waitMs) / 1000).toFixed(3)) } : {};
}

/** The rate-limit fields of an answer, in the limiter's form (none by default). */
function rateLimitHeaders(form, { limit, remaining, resetMs, windowMs }, wallClockMs = Date.now()) {
	const resetSeconds = Math.ceil(Math.max(0, resetMs) / 1000);
	const windowSeconds =
		windowMs === undefined ? undefined : Math.max(1, Math.ceil(windowMs / 1000));
	switch (form) {
		case 'x-ratelimit':
		case 'x-ratelimit-epoch':
			return {
				'x-ratelimit-limit': String(limit),
				'x-ratelimit-remaining': String(remaining),
				'x-ratelimit-reset': String(
					form === 'x-ratelimit'
						? resetSeconds
						: Math.ceil((wallClockMs + Math.max(0, resetMs)) / 1000),
				),
			};
		case 'x-ratelimit-reset-after': // Discord: seconds until the reset, with milliseconds
			return {
				'x-ratelimit-limit': String(limit),
				'x-ratelimit-remaining': String(remaining),
				'x-ratelimit-reset-after': (Math.max(0, resetMs) / 1000).toFixed(3),
			};
		case 'x-ratelimit-requests': // OpenAI: the request budget, its reset as a duration
			return {
				'x-ratelimit-limit-requests': String(limit),
				'x-ratelimit-remaining-requests': String(remaining),
				'x-ratelimit-reset-requests': duration(resetMs),
				'x-ratelimit-remaining-tokens': '150000',
				'x-ratelimit-reset-tokens': '6m0s',
			};
		case 'ietf': // draft-ietf-httpapi-ratelimit-headers-08 to -10: structured-field lists of named policies
			return {
				'ratelimit-policy': `"default";q=${limit}${windowSeconds === undefined ? '' : `;w=${windowSeconds}`}`,
				ratelimit: `"default";r=${remaining};t=${resetSeconds}`,
			};
		case 'ietf-draft-07':
			return {
				'ratelimit-policy': `${limit}${windowSeconds === undefined ? '' : `;w=${windowSeconds}`}`,
				ratelimit: `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}`,
			};
		default:
			return {};
	}
}

module.exports = {
	createLimiter,
	retryAfterHeaders,
	retryAfterBody,
	rateLimitHeaders,
	SHAPES,
	RETRY_AFTER_FORMS,
	HEADER_FORMS,
};
