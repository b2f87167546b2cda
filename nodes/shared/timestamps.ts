/**
 * The spec shows timestamps as integers of an unstated unit. Seconds and milliseconds since the Unix
 * epoch are told apart by size: 1e11 seconds is the year 5138, 1e11 milliseconds is March 1973, so any
 * timestamp between 1973 and 5138 is read correctly either way. The credential can also fix the unit.
 */

export type TimestampUnit = 'seconds' | 'milliseconds';
export type TimestampUnitSetting = 'auto' | TimestampUnit;

const MILLISECONDS_FROM = 1e11;

/** The fields of a message, conversation or contact that hold timestamps. */
export const TIMESTAMP_FIELDS = [
	'created_at',
	'updated_at',
	'read_at',
	'last_active_at',
	'last_opened_at',
	'archived_at',
];

export function unitOfTimestamp(value: number): TimestampUnit {
	return Math.abs(value) >= MILLISECONDS_FROM ? 'milliseconds' : 'seconds';
}

/** The unit shown by the first integer timestamp of a record, or undefined when it holds none. */
export function detectTimestampUnit(record: object | undefined): TimestampUnit | undefined {
	if (!record) return undefined;
	for (const field of TIMESTAMP_FIELDS) {
		const value = (record as Record<string, unknown>)[field];
		if (typeof value === 'number' && Number.isFinite(value)) return unitOfTimestamp(value);
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

export function timestampToIso(value: number, unit: TimestampUnit): string {
	return new Date(toMilliseconds(value, unit)).toISOString();
}

/**
 * Adds `<field>_iso` beside every timestamp field of a record and of its embedded contact;
 * the integers themselves stay as the service sent them.
 */
export function withIsoTimestamps<T extends object>(record: T, setting: TimestampUnitSetting): T {
	const result: Record<string, unknown> = { ...(record as Record<string, unknown>) };
	for (const field of TIMESTAMP_FIELDS) {
		const value = result[field];
		if (typeof value === 'number' && Number.isFinite(value)) {
			result[`${field}_iso`] = timestampToIso(value, resolveUnit(setting, value));
		} else if (value === null) {
			result[`${field}_iso`] = null;
		}
	}
	const contact = result.contact;
	if (contact !== null && typeof contact === 'object' && !Array.isArray(contact)) {
		result.contact = withIsoTimestamps(contact as object, setting);
	}
	return result as T;
}

/**
 * A date a user typed (ISO 8601 text, a Date-like string, or an integer already in the service's unit)
 * as an integer timestamp in `unit`. Returns undefined for text that is not a date.
 */
export function dateInputToTimestamp(input: unknown, unit: TimestampUnit): number | undefined {
	if (input instanceof Date) return Number.isNaN(input.getTime()) ? undefined : fromMilliseconds(input.getTime(), unit);
	const toMillis = (input as { toMillis?: unknown } | null)?.toMillis; // a Luxon DateTime, e.g. {{ $now }}
	if (typeof toMillis === 'function') return fromMilliseconds(Number(toMillis.call(input)), unit);
	if (typeof input === 'number') return Number.isInteger(input) ? input : undefined;
	if (typeof input !== 'string' || input.trim() === '') return undefined;
	const text = input.trim();
	if (/^\d+$/.test(text)) return Number(text);
	const milliseconds = Date.parse(text);
	return Number.isNaN(milliseconds) ? undefined : fromMilliseconds(milliseconds, unit);
}
