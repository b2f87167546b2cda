import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** A bad-input error that names the field and the item, thrown before any request is sent. */
export function inputError(
	context: IExecuteFunctions,
	itemIndex: number,
	field: string,
	problem: string,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), `${field} ${problem} [item ${itemIndex}]`, {
		itemIndex,
		description: `Check the "${field}" parameter of item ${itemIndex}.`,
	});
}

/** The value of a resource locator, whichever shape it arrives in (locator object, plain text, number). */
export function locatorValue(value: unknown): string {
	if (value && typeof value === 'object' && 'value' in value) return locatorValue((value as IDataObject).value);
	if (value === undefined || value === null) return '';
	return String(value).trim();
}

/** A required id (resource locator or text): never empty and never a bare `.` or `..`. */
export function getRequiredId(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): string {
	const id = locatorValue(context.getNodeParameter(name, itemIndex, ''));
	if (id === '') throw inputError(context, itemIndex, label, 'is empty');
	if (id === '.' || id === '..') throw inputError(context, itemIndex, label, `cannot be "${id}"`);
	return id;
}

/** Attachments: a JSON array of objects, as text or as a value from an expression. */
export function getAttachments(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
): IDataObject[] | undefined {
	const raw = context.getNodeParameter(name, itemIndex, '') as unknown;
	if (raw === undefined || raw === null || raw === '') return undefined;
	let value = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch {
			throw inputError(context, itemIndex, 'Attachments', 'is not valid JSON (expected an array of objects)');
		}
	}
	if (!Array.isArray(value) || !value.every((a) => a !== null && typeof a === 'object' && !Array.isArray(a))) {
		throw inputError(context, itemIndex, 'Attachments', 'must be a JSON array of objects, like [{"name": "report.pdf"}]');
	}
	return value as IDataObject[];
}
