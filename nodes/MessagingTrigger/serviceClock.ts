/**
 * The service's clock as a listing shows it: its timestamp unit and now in that unit. A listing reads it
 * once (listing.ts) and everything after it (the watermark, Group Bursts) takes it from there.
 */
import {
	fromMilliseconds,
	unitOfTimestamp,
	type TimestampUnit,
	type TimestampUnitSetting,
} from '../shared/timestamps';
import type { PageFetcher } from '../shared/paginate';
import type { TriggerMessage, TriggerState } from './triggerState';

export interface ServiceClock {
	/** Undefined while nothing showed it: not set on the credential, not remembered, no message listed. */
	unit: TimestampUnit | undefined;
	/** Now in the service's unit: on its clock when an answer said its time, else on ours. */
	now: number;
}

/** The service's unit: fixed by the credential, else remembered, else shown by a message; never guessed from nothing. */
export function serviceUnit(
	setting: TimestampUnitSetting,
	state: TriggerState | null,
	listed: TriggerMessage[],
): TimestampUnit | undefined {
	if (setting === 'seconds' || setting === 'milliseconds') return setting;
	if (state?.unit) return state.unit;
	return listed.length > 0 ? unitOfTimestamp(listed[0].created_at) : undefined;
}

/** The clock of a listing in `unit`, at `nowMs` (the service's time when it said it, else ours). */
export function clockAt(unit: TimestampUnit | undefined, nowMs: number): ServiceClock {
	return { unit, now: fromMilliseconds(nowMs, unit ?? 'seconds') };
}

/** `seconds` in the service's unit. */
export function inUnit(seconds: number, unit: TimestampUnit | undefined): number {
	return unit === 'milliseconds' ? seconds * 1000 : seconds;
}

/** `fetchPage` that keeps the service's time of its first answer that said it (the listing's clock). */
export function firstServiceTime(fetchPage: PageFetcher): {
	fetchPage: PageFetcher;
	serviceTimeMs: () => number | undefined;
} {
	let serviceTimeMs: number | undefined;
	return {
		fetchPage: async (cursor, limit) => {
			const page = await fetchPage(cursor, limit);
			serviceTimeMs ??= page.serviceTimeMs;
			return page;
		},
		serviceTimeMs: () => serviceTimeMs,
	};
}
