/**
 * The spec shows timestamps as integers of an unstated unit. Seconds and milliseconds since the Unix
 * epoch are told apart by size: 1e11 seconds is the year 5138, 1e11 milliseconds is March 1973, so any
 * timestamp between 1973 and 5138 is read correctly either way. The credential can also fix the unit.
 */

export type TimestampUnit = 'seconds' | 'milliseconds';
export type TimestampUnitSetting = 'auto' | TimestampUnit;

const MILLISECONDS_FROM = 1e11;
/** The largest epoch milliseconds a Date holds. */
const MAX_DATE_MS = 8.64e15;

/** The fields of a message, conversation or contact that hold timestamps. */
export const TIMESTAMP_FIELDS = [
	'created_at',
	'updated_at',
	'read_at',
	'last_active_at',
	'last_opened_at',
	'archived_at',
];

/** A timestamp as the service sent it: a finite number, or a number as text (`"1764064800"`). */
export function timestampValue(value: unknown): number | undefined {
	const number =
		typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
	// Beyond what a Date holds (±8.64e15 ms) it is no time: 400 digits of text are Infinity.
	return typeof number === 'number' && Number.isFinite(number) && Math.abs(number) <= MAX_DATE_MS
		? number
		: undefined;
}

export function unitOfTimestamp(value: number): TimestampUnit {
	return Math.abs(value) >= MILLISECONDS_FROM ? 'milliseconds' : 'seconds';
}

/** The unit shown by the first timestamp of a record, or undefined when it holds none. */
export function detectTimestampUnit(record: object | undefined): TimestampUnit | undefined {
	if (!record) return undefined;
	for (const field of TIMESTAMP_FIELDS) {
		const value = timestampValue((record as Record<string, unknown>)[field]);
		if (value !== undefined) return unitOfTimestamp(value);
	}
	return undefined;
}

export function resolveUnit(setting: TimestampUnitSetting, value: number): TimestampUnit {
	return setting === 'auto' ? unitOfTimestamp(value) : setting;
}

export function toMilliseconds(value: number, unit: TimestampUnit): number {
	return unit === 'milliseconds' ? value : value * 1000;
}

export function fromMilliseconds(milliseconds: number, unit: TimestampUnit): number {
	return unit === 'milliseconds' ? Math.round(milliseconds) : Math.floor(milliseconds / 1000);
}

/** The `<field>_iso` twins withIsoTimestamps adds: an ISO date, or null for a null field. */
export type IsoTimestamps = { [field: `${string}_iso`]: string | null };

/**
 * Adds `<field>_iso` beside every timestamp field of a record and of its embedded contact;
 * the timestamps themselves stay as the service sent them (numbers, or numbers as text).
 */
export function withIsoTimestamps<T extends object>(
	record: T,
	setting: TimestampUnitSetting,
): T & IsoTimestamps {
	const result: Record<string, unknown> = { ...(record as Record<string, unknown>) };
	for (const field of TIMESTAMP_FIELDS) {
		const value = timestampValue(result[field]);
		const ms = value === undefined ? NaN : toMilliseconds(value, resolveUnit(setting, value));
		if (Math.abs(ms) <= MAX_DATE_MS) {
			result[`${field}_iso`] = new Date(ms).toISOString();
		} else if (result[field] === null) {
			result[`${field}_iso`] = null;
		}
	}
	const contact = result.contact;
	if (contact !== null && typeof contact === 'object' && !Array.isArray(contact)) {
		result.contact = withIsoTimestamps(contact as object, setting);
	}
	return result as T & IsoTimestamps;
}

const ISO_DATE =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Milliseconds the timezone `timeZone` is ahead of UTC at the instant `epochMs`. */
export function timezoneOffsetMs(epochMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(epochMs));
	const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const asUtc = Date.UTC(
		get('year'),
		get('month') - 1,
		get('day'),
		get('hour'),
		get('minute'),
		get('second'),
	);
	return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/** Epoch milliseconds of a wall-clock time in `timeZone` (daylight saving included). */
export function zonedTimeToEpochMs(wallClockAsUtcMs: number, timeZone: string): number {
	const first = wallClockAsUtcMs - timezoneOffsetMs(wallClockAsUtcMs, timeZone);
	return wallClockAsUtcMs - timezoneOffsetMs(first, timeZone);
}

/**
 * A date a user gave, as an integer timestamp in `unit`, parsed strictly: ISO 8601 text (without an
 * offset it is read in `timeZone`), an integer already in the service's unit (number or digits), a
 * JavaScript Date or n8n's DateTime (e.g. {{ $now }}). Anything else, and impossible dates such as
 * 2025-02-30, are a problem, never a guess.
 */
export function parseDateInput(
	input: unknown,
	unit: TimestampUnit,
	timeZone = 'UTC',
): { timestamp: number } | { problem: string } {
	const notADate = {
		problem: `is not a date: ${String(input)} (use ISO 8601, e.g. 2025-03-05T14:30:00Z)`,
	};
	if (input instanceof Date) {
		return Number.isNaN(input.getTime())
			? notADate
			: { timestamp: fromMilliseconds(input.getTime(), unit) };
	}
	const toMillis = (input as { toMillis?: unknown } | null)?.toMillis; // n8n's (Luxon) DateTime
	if (typeof toMillis === 'function') {
		const milliseconds = Number(toMillis.call(input));
		return Number.isFinite(milliseconds)
			? { timestamp: fromMilliseconds(milliseconds, unit) }
			: notADate;
	}
	if (typeof input === 'number') return Number.isInteger(input) ? { timestamp: input } : notADate;
	if (typeof input !== 'string') return notADate;
	const text = input.trim();
	if (/^\d+$/.test(text)) return { timestamp: Number(text) };
	const match = ISO_DATE.exec(text);
	if (!match) return notADate;
	const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', offset] = match;
	const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number);
	const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3) || 0);
	const wallClock = Date.UTC(y, mo - 1, d, h, mi, s, milliseconds);
	const check = new Date(wallClock);
	if (
		check.getUTCFullYear() !== y ||
		check.getUTCMonth() !== mo - 1 ||
		check.getUTCDate() !== d ||
		h > 23 ||
		mi > 59 ||
		s > 59
	) {
		return { problem: `is not a valid date: ${text}` };
	}
	let epochMs: number;
	if (offset === undefined) {
		try {
			epochMs = zonedTimeToEpochMs(wallClock, timeZone);
		} catch {
			return { problem: `cannot be read in the workflow's timezone "${timeZone}"` };
		}
	} else if (/^z$/i.test(offset)) epochMs = wallClock;
	else {
		const sign = offset.startsWith('-') ? -1 : 1;
		const digits = offset.slice(1).replace(':', '');
		const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
		epochMs = wallClock - sign * minutes * 60_000;
	}
	return { timestamp: fromMilliseconds(epochMs, unit) };
}
