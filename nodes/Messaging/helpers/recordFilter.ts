/**
 * Pure: Get Many's filters the service cannot be asked for (the spec's lists filter on nothing of the kind):
 * matched by the node on each page, and where the list's order allows it, the end of the paging.
 */
import type { IDataObject } from 'n8n-workflow';

import { senderOf } from '../../shared/ids';
import { CLEAR_ORDER_PAIRS, countOrder, type OrderEvidence } from '../../shared/listOrder';
import type { ListOrder, PageFilter } from '../../shared/paginate';
import {
	resolveUnit,
	timestampValue,
	toMilliseconds,
	type TimestampUnit,
	type TimestampUnitSetting,
} from '../../shared/timestamps';

/** A date bound as the service would write it, in either unit (picked per record by its unit). */
export type Bound = Record<TimestampUnit, number>;

/** Records whose `field` lies in [after, before): at or after `after`, strictly before `before`. */
export interface TimeWindow {
	field: 'created_at' | 'last_active_at';
	after?: Bound;
	before?: Bound;
}

export interface FilterRules {
	windows: TimeWindow[];
	/** last_active_at empty (true) or a time (false). */
	neverActive?: boolean;
	/** read_at empty. */
	unreadOnly?: boolean;
	/** Contact ids, or `@` and a username. */
	from?: string[];
	/** Case-folded (foldCase); matched against the message's text folded alike. */
	textContains?: string;
	/** The credential's Timestamp Unit; 'auto' reads each timestamp's unit off its size. */
	unit: TimestampUnitSetting;
}

/** Text compared ignoring upper and lower case (accents count), é composed or not alike. */
export function foldCase(text: string): string {
	return text.normalize('NFC').toLowerCase();
}

/** A time field the service left empty (null or ''), as opposed to absent or a time. */
function isEmptyTime(value: unknown): boolean {
	return value === null || value === '';
}

/** A record's `field` and the bound in the same unit: the comparison is made in the service's unit. */
function inUnit(
	record: IDataObject,
	field: string,
	setting: TimestampUnitSetting,
): { value: number; unit: TimestampUnit } | undefined {
	const value = timestampValue(record[field]);
	return value === undefined ? undefined : { value, unit: resolveUnit(setting, value) };
}

function inWindow(record: IDataObject, window: TimeWindow, setting: TimestampUnitSetting): boolean {
	const time = inUnit(record, window.field, setting);
	if (!time) return false;
	if (window.after && time.value < window.after[time.unit]) return false;
	return !(window.before && time.value >= window.before[time.unit]);
}

/** Whether `record` passes every rule set. */
export function recordMatches(record: IDataObject, rules: FilterRules): boolean {
	if (!rules.windows.every((w) => inWindow(record, w, rules.unit))) return false;
	if (rules.neverActive !== undefined) {
		const never = isEmptyTime(record.last_active_at);
		const active = timestampValue(record.last_active_at) !== undefined;
		if (rules.neverActive ? !never : !active) return false;
	}
	if (rules.unreadOnly && !isEmptyTime(record.read_at)) return false;
	if (rules.from) {
		const { id, username } = senderOf(record);
		const sent = rules.from.some((entry) =>
			entry.startsWith('@') ? username !== undefined && entry.slice(1) === username : entry === id,
		);
		if (!sent) return false;
	}
	if (rules.textContains !== undefined) {
		const text = record.message;
		if (typeof text !== 'string' || !foldCase(text).includes(rules.textContains)) return false;
	}
	return true;
}

/**
 * The order read so far when every unequal pair agrees, and there are CLEAR_ORDER_PAIRS of them. Stricter
 * than the trigger (three in four): a wrong stop here drops records silently, with no later check to
 * correct it; a list with a late message is read to its end, which costs requests, never records.
 */
export function unanimousOrder(evidence: OrderEvidence): ListOrder | undefined {
	const { rising, falling } = evidence;
	if (rising >= CLEAR_ORDER_PAIRS && falling === 0) return 'oldest_first';
	if (falling >= CLEAR_ORDER_PAIRS && rising === 0) return 'newest_first';
	return undefined;
}

/**
 * The filter for the paginator, or undefined when no rule is set. Its `endsAfter` learns the order from
 * created_at (the field the spec's lists are ordered by; never last_active_at, which no list is ordered by)
 * and ends the paging after a page wholly past a created_at bound: older than Created After on a newest-first
 * list, not before Created Before on an oldest-first one.
 */
export function pageFilter(rules: FilterRules): PageFilter | undefined {
	const set =
		rules.windows.length > 0 ||
		rules.neverActive !== undefined ||
		rules.unreadOnly ||
		rules.from !== undefined ||
		rules.textContains !== undefined;
	if (!set) return undefined;
	const created = rules.windows.find((w) => w.field === 'created_at');
	let evidence: OrderEvidence = { rising: 0, falling: 0 };
	let previousLast: { created_at: number } | undefined;
	return {
		keep: (record) => recordMatches(record, rules),
		endsAfter(page) {
			const times = page.map((record) => inUnit(record, 'created_at', rules.unit));
			const dated = times
				.filter((t) => t !== undefined)
				.map((t) => ({ created_at: toMilliseconds(t.value, t.unit) }));
			evidence = countOrder(dated, previousLast, evidence);
			previousLast = dated[dated.length - 1] ?? previousLast;
			const order = unanimousOrder(evidence);
			const past = (beyond: (time: { value: number; unit: TimestampUnit }) => boolean) =>
				times.length > 0 && times.every((t) => t !== undefined && beyond(t));
			const { after, before } = created ?? {};
			if (order === 'newest_first' && after) return past((t) => t.value < after[t.unit]);
			if (order === 'oldest_first' && before) return past((t) => t.value >= before[t.unit]);
			return false;
		},
	};
}
