/**
 * Reading Get Many's filters the node applies itself (dates, sender, unread, text, activity), all checked
 * before any request: a date that is not one, or a window that holds no time, stops the item naming the field.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { PageFilter } from '../../shared/paginate';
import { parseDateInput } from '../../shared/timestamps';
import { getMessagingCredentials } from '../../shared/transport/credentials';
import { getText, listEntries } from './parameters';
import { inputError } from '../../shared/inputError';
import {
	foldCase,
	pageFilter,
	type Bound,
	type FilterRules,
	type TimeWindow,
} from './recordFilter';

type Noun = 'messages' | 'conversations';

/** A date filter, in both units; undefined when not set. Read as Archived At is (see dateToTimestamp). */
function readBound(
	context: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
): { bound: Bound; shown: string } | undefined {
	const value = context.getNodeParameter(`filters.${name}`, itemIndex, '') as unknown;
	if (value === '' || value === null || value === undefined) return undefined;
	const timeZone = context.getTimezone();
	const bound = {} as Bound;
	for (const unit of ['seconds', 'milliseconds'] as const) {
		const parsed = parseDateInput(value, unit, timeZone);
		if ('problem' in parsed) throw inputError(context, itemIndex, label, parsed.problem);
		bound[unit] = parsed.timestamp;
	}
	const iso = (value as { toISO?: () => string }).toISO?.();
	const shown = value instanceof Date ? value.toISOString() : (iso ?? String(value));
	return { bound, shown };
}

/** `<Label> After` and `<Label> Before` on `field`; an After not earlier than its Before is refused. */
function readWindow(
	context: IExecuteFunctions,
	itemIndex: number,
	field: TimeWindow['field'],
	prefix: 'created' | 'lastActive',
	noun: Noun,
): TimeWindow | undefined {
	const label = prefix === 'created' ? 'Created' : 'Last Active';
	const after = readBound(context, itemIndex, `${prefix}After`, `${label} After`);
	const before = readBound(context, itemIndex, `${prefix}Before`, `${label} Before`);
	if (!after && !before) return undefined;
	if (after && before && after.bound.milliseconds >= before.bound.milliseconds) {
		throw inputError(
			context,
			itemIndex,
			`${label} After`,
			`(${after.shown}) must be earlier than ${label} Before (${before.shown}): no ${noun} could match`,
		);
	}
	return { field, after: after?.bound, before: before?.bound };
}

function readBoolean(
	context: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
): boolean | undefined {
	const value = context.getNodeParameter(`filters.${name}`, itemIndex, '') as unknown;
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'boolean')
		throw inputError(context, itemIndex, label, 'must be true or false');
	return value;
}

/** The credential's unit setting, read only when a date filter needs it (no request: auto reads sizes). */
async function withUnit(
	context: IExecuteFunctions,
	rules: Omit<FilterRules, 'unit'>,
): Promise<PageFilter | undefined> {
	const unit =
		rules.windows.length > 0
			? ((await getMessagingCredentials.call(context)).timestampUnit ?? 'auto')
			: 'auto';
	return pageFilter({ ...rules, unit });
}

/** Message → Get Many: Created After / Before, From, Unread Only, Text Contains. */
export async function messageFilter(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<PageFilter | undefined> {
	const windows = [readWindow(context, itemIndex, 'created_at', 'created', 'messages')];
	const fromText = getText(context, 'filters.from', itemIndex, 'From', { required: false });
	const { entries, empty } = listEntries(fromText);
	if (empty) throw inputError(context, itemIndex, 'From', 'has an empty entry (between commas)');
	if (entries.includes('@'))
		throw inputError(context, itemIndex, 'From', 'has "@" without a username after it');
	const text = getText(context, 'filters.textContains', itemIndex, 'Text Contains', {
		required: false,
	});
	return await withUnit(context, {
		windows: windows.filter((w) => w !== undefined),
		unreadOnly: readBoolean(context, itemIndex, 'unreadOnly', 'Unread Only'),
		from: entries.length > 0 ? entries : undefined,
		textContains: text === '' ? undefined : foldCase(text),
	});
}

/** Conversation → Get Many: Created and Last Active After / Before, Never Active. */
export async function conversationFilter(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<PageFilter | undefined> {
	const created = readWindow(context, itemIndex, 'created_at', 'created', 'conversations');
	const active = readWindow(context, itemIndex, 'last_active_at', 'lastActive', 'conversations');
	const neverActive = readBoolean(context, itemIndex, 'neverActive', 'Never Active');
	if (neverActive === true && active) {
		throw inputError(
			context,
			itemIndex,
			'Never Active',
			'cannot be combined with Last Active After or Before: a conversation never active has no last activity',
		);
	}
	return await withUnit(context, {
		windows: [created, active].filter((w) => w !== undefined),
		neverActive,
	});
}
