/**
 * Reading the node's parameters strictly: a value of the wrong kind is an error that names the field
 * and the item, raised before any request is sent, never a silent `[object Object]` or `m1,m2`.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { inputError } from '../../shared/inputError';
import { parseDateInput, type TimestampUnit } from '../../shared/timestamps';

/** What kind of value this is, as a person would say it. */
export function kindOf(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (value === null) return 'null';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Pure: an id from a parameter value (text, or a number), or why it cannot be one. */
export function idFromValue(value: unknown): { id: string } | { problem: string } {
	if (value === undefined || value === null) return { id: '' };
	if (typeof value === 'number') {
		return Number.isFinite(value) ? { id: String(value) } : { problem: 'is not a valid ID' };
	}
	if (typeof value !== 'string') return { problem: `must be text, not ${kindOf(value)}` };
	const id = value.trim();
	if (id === '.' || id === '..') return { problem: `cannot be "${id}"` };
	return { id };
}

/** An optional id (resource locator or text); '' when not given. */
export function getOptionalId(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): string {
	const value = context.getNodeParameter(name, itemIndex, '', { extractValue: true });
	const result = idFromValue(value);
	if ('problem' in result) throw inputError(context, itemIndex, label, result.problem);
	return result.id;
}

/** A required id (resource locator or text): never empty, never an object. */
export function getRequiredId(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): string {
	const id = getOptionalId(context, name, itemIndex, label);
	if (id === '') throw inputError(context, itemIndex, label, 'is empty');
	return id;
}

/**
 * Pure: text from a parameter value, or why it cannot be text. A number or a boolean from an expression
 * (`{{ $json.total }}`) is written as text, as n8n's messaging nodes do; an object or a list is refused
 * rather than sent as `[object Object]` or `a,b`.
 */
export function textFromValue(value: unknown): { text: string } | { problem: string } {
	if (value === undefined || value === null) return { text: '' };
	if (typeof value === 'string') return { text: value };
	if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') {
		return { text: String(value) };
	}
	return { problem: `must be text, not ${kindOf(value)}` };
}

/** Text (see textFromValue); `required` refuses empty or blank text. */
export function getText(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
	options: { required: boolean; emptyProblem?: string },
): string {
	const result = textFromValue(context.getNodeParameter(name, itemIndex, '') as unknown);
	if ('problem' in result) throw inputError(context, itemIndex, label, result.problem);
	const { text } = result;
	if (options.required && text.trim() === '') {
		throw inputError(context, itemIndex, label, options.emptyProblem ?? 'is empty');
	}
	return text;
}

/** A whole number of at least 1; numeric text from an expression is accepted. */
export function getPositiveInteger(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
	fallback: number,
): number {
	const value = context.getNodeParameter(name, itemIndex, fallback) as unknown;
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
		throw inputError(context, itemIndex, label, 'must be a whole number of at least 1');
	}
	return number;
}

/**
 * A date as an integer timestamp in the service's unit; text without an offset is read in the
 * workflow's timezone. The input is checked before the unit is asked for (which may ask the service):
 * bad input stops before any request.
 */
export async function dateToTimestamp(
	context: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
	label: string,
	unitOf: () => Promise<TimestampUnit>,
): Promise<number> {
	const timeZone = context.getTimezone();
	const checked = parseDateInput(value, 'milliseconds', timeZone);
	if ('problem' in checked) throw inputError(context, itemIndex, label, checked.problem);
	const result = parseDateInput(value, await unitOf(), timeZone);
	if ('problem' in result) throw inputError(context, itemIndex, label, result.problem);
	return result.timestamp;
}

/** The words of a comma-separated list, trimmed, empty entries reported. */
export function listEntries(value: string): { entries: string[]; empty: boolean } {
	const parts = value.split(',').map((p) => p.trim());
	const entries = parts.filter((p) => p !== '');
	return { entries, empty: value.trim() !== '' && entries.length !== parts.length };
}
