/** Reading Extra Body Fields and Extra Query Parameters: checked names, JSON values parsed. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { inputError } from '../../shared/inputError';

type Parameter = 'extraBodyFields' | 'extraQueryParameters';

const LABEL: Record<Parameter, string> = {
	extraBodyFields: 'Extra Body Fields',
	extraQueryParameters: 'Extra Query Parameters',
};

/**
 * The rows the user added, as fields to merge into the request. `taken`: the names the node sets itself
 * (also when this request leaves them out), which an extra field may not replace.
 */
export function readExtraFields(
	context: IExecuteFunctions,
	itemIndex: number,
	parameter: Parameter,
	taken: readonly string[],
): IDataObject {
	const rows = context.getNodeParameter(`${parameter}.field`, itemIndex, []) as Array<{
		name?: unknown;
		value?: unknown;
	}>;
	const label = LABEL[parameter];
	const fields: IDataObject = {};
	(Array.isArray(rows) ? rows : []).forEach((row, i) => {
		const name = String(row.name ?? '').trim();
		const at = `row ${i + 1}`;
		const fail = (problem: string) => inputError(context, itemIndex, label, problem);
		if (name === '') throw fail(`${at} has no Name`);
		if (/[[\]]/.test(name))
			throw fail(`"${name}" (${at}): a name has no brackets; give nested fields as a JSON value`);
		if (taken.includes(name)) throw fail(`"${name}" (${at}) is set by the node itself`);
		if (name in fields) throw fail(`"${name}" is given twice`);
		fields[name] = valueOf(row.value, (problem) => fail(`"${name}" (${at}): ${problem}`));
	});
	return fields;
}

function valueOf(value: unknown, fail: (problem: string) => Error): IDataObject[string] {
	if (typeof value !== 'string') return value as IDataObject[string];
	const text = value.trim();
	if (!text.startsWith('[') && !text.startsWith('{')) return value;
	try {
		return JSON.parse(text) as IDataObject[string];
	} catch (error) {
		throw fail(`the value starts like JSON but is not valid JSON (${(error as Error).message})`);
	}
}
