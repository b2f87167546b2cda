/**
 * Pure: Send and Wait for Response's Custom Form. The fields as n8n's own form nodes define them
 * (formFields.values[]: fieldLabel, fieldType, fieldOptions.values[].option, multiselect, requiredField,
 * placeholder), checked before anything is sent, and a submitted form read back into `{ <label>: value }`.
 */
import type { INodeProperties } from 'n8n-workflow';

export const FORM_FIELD_TYPES = [
	'text',
	'number',
	'email',
	'date',
	'dropdown',
	'checkbox',
	'textarea',
	'password',
] as const;

export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

export interface FormField {
	label: string;
	type: FormFieldType;
	required: boolean;
	options: string[];
	multiselect: boolean;
	placeholder: string;
}

export const formFieldsProperty: INodeProperties = {
	displayName: 'Form Fields',
	name: 'formFields',
	placeholder: 'Add Form Field',
	type: 'fixedCollection',
	default: { values: [{ fieldLabel: '', fieldType: 'text' }] },
	description: 'The fields of the form the person fills in; the output has one key per field label',
	typeOptions: { multipleValues: true, sortable: true },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Field Label',
					name: 'fieldLabel',
					type: 'string',
					default: '',
					placeholder: 'e.g. Refund amount',
					description: 'Shown above the input, and the key of its value in the output',
					required: true,
				},
				{
					displayName: 'Field Options',
					name: 'fieldOptions',
					placeholder: 'Add Field Option',
					description: 'The choices of the dropdown list or the checkboxes',
					type: 'fixedCollection',
					default: { values: [{ option: '' }] },
					displayOptions: { show: { fieldType: ['dropdown', 'checkbox'] } },
					typeOptions: { multipleValues: true, sortable: true },
					options: [
						{
							displayName: 'Values',
							name: 'values',
							values: [
								{
									displayName: 'Option',
									name: 'option',
									type: 'string',
									default: '',
									description: 'One choice',
								},
							],
						},
					],
				},
				{
					displayName: 'Field Type',
					name: 'fieldType',
					type: 'options',
					default: 'text',
					description: 'The kind of input',
					options: [
						{ name: 'Checkboxes', value: 'checkbox' },
						{ name: 'Date', value: 'date' },
						{ name: 'Dropdown List', value: 'dropdown' },
						{ name: 'Email', value: 'email' },
						{ name: 'Number', value: 'number' },
						{ name: 'Password', value: 'password' },
						{ name: 'Text', value: 'text' },
						{ name: 'Textarea', value: 'textarea' },
					],
				},
				{
					displayName: 'Multiple Choice',
					name: 'multiselect',
					type: 'boolean',
					default: false,
					description: 'Whether the person may choose several options of the dropdown list',
					displayOptions: { show: { fieldType: ['dropdown'] } },
				},
				{
					displayName: 'Placeholder',
					name: 'placeholder',
					type: 'string',
					default: '',
					description: 'Sample text shown in the empty input',
					displayOptions: {
						show: { fieldType: ['text', 'number', 'email', 'textarea', 'password'] },
					},
				},
				{
					displayName: 'Required Field',
					name: 'requiredField',
					type: 'boolean',
					default: false,
					description: 'Whether the form cannot be sent without a value in this field',
				},
			],
		},
	],
};

const text = (value: unknown): string =>
	typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';

/** The Form Fields parameter as FormFields, or the first problem ("field 2 (\"Amount\") has no options"). */
export function readFormFields(raw: unknown): FormField[] | { problem: string } {
	const rows = Array.isArray(raw) ? raw : [];
	if (rows.length === 0) return { problem: 'has no fields' };
	const fields: FormField[] = [];
	const labels = new Set<string>();
	for (const [index, row] of rows.entries()) {
		const where = `field ${index + 1}`;
		if (!row || typeof row !== 'object') return { problem: `${where} is not a field definition` };
		const r = row as Record<string, unknown>;
		const label = text(r.fieldLabel).trim();
		if (label === '') return { problem: `${where} has no Field Label` };
		const named = `${where} ("${label}")`;
		if (labels.has(label)) return { problem: `${named} has the same label as another field` };
		labels.add(label);
		const type = (r.fieldType ?? 'text') as FormFieldType;
		if (!FORM_FIELD_TYPES.includes(type)) {
			return {
				problem: `${named} has an unknown Field Type "${text(r.fieldType)}" (one of ${FORM_FIELD_TYPES.join(', ')})`,
			};
		}
		const optionRows = (r.fieldOptions as { values?: unknown } | undefined)?.values;
		const options = (Array.isArray(optionRows) ? optionRows : [])
			.map((o) => text((o as { option?: unknown } | null)?.option).trim())
			.filter((o) => o !== '');
		if ((type === 'dropdown' || type === 'checkbox') && options.length === 0)
			return { problem: `${named} has no Field Options` };
		if (new Set(options).size !== options.length)
			return { problem: `${named} has the same option twice` };
		fields.push({
			label,
			type,
			required: r.requiredField === true,
			options: type === 'dropdown' || type === 'checkbox' ? options : [],
			multiselect: type === 'dropdown' && r.multiselect === true,
			placeholder: text(r.placeholder),
		});
	}
	return fields;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** HTML's "valid floating-point number", all a browser's number input sends: no spaces, `+`, hex or `Infinity`. */
const NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A Number field's value as a browser sends it (`12.5`, `-3`, `.5`, `1e3`), else undefined. */
export function formNumber(value: string): number | undefined {
	if (!NUMBER.test(value)) return undefined;
	const number = Number(value);
	// As HTML parses it: a value that rounds to infinity is refused, and -0 is 0.
	return Number.isFinite(number) ? number + 0 : undefined;
}

/** Whether a Date field's value is a day of the calendar as YYYY-MM-DD (year 0001 to 9999). */
export function isFormDate(value: string): boolean {
	const match = DATE.exec(value);
	if (!match) return false;
	const [year, month, day] = match.slice(1).map(Number);
	const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
	const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
	return year >= 1 && days !== undefined && day >= 1 && day <= days;
}

/**
 * A submitted form (urlencoded or multipart: n8n puts multipart fields under `data`) as
 * `{ data: { <label>: value } }`: a number for Number (null when empty), a list for checkboxes and multiple choice,
 * text otherwise. Numbers and dates only as a browser's inputs send them: a hand-made POST gets no more leeway.
 * Returns a problem sentence for the person when the answer does not fit the form.
 */
export function readSubmission(
	fields: FormField[],
	body: Record<string, unknown> | undefined,
	nameOf: (index: number) => string,
): { data: Record<string, unknown> } | { problem: string } {
	const source = (body?.data as Record<string, unknown> | undefined) ?? body ?? {};
	const values = (index: number): string[] => {
		const value = source[nameOf(index)];
		const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
		return list.map(text).filter((v) => v.trim() !== '');
	};
	const answer: Record<string, unknown> = {};
	for (const [index, field] of fields.entries()) {
		const given = values(index);
		if (field.required && given.length === 0) return { problem: `"${field.label}" is required.` };
		if (field.type === 'checkbox' || field.multiselect) {
			if (given.some((v) => !field.options.includes(v)))
				return { problem: `"${field.label}" has a choice that is not offered.` };
			answer[field.label] = given;
			continue;
		}
		const value = given[0] ?? '';
		if (field.type === 'number') {
			const number = formNumber(value);
			if (value !== '' && number === undefined)
				return { problem: `"${field.label}" must be a number (like 12.5, -3 or 1e3).` };
			answer[field.label] = number ?? null;
		} else if (value !== '' && field.type === 'email' && !EMAIL.test(value.trim())) {
			return { problem: `"${field.label}" must be an email address.` };
		} else if (value !== '' && field.type === 'date' && !isFormDate(value)) {
			return { problem: `"${field.label}" must be a date that exists, as YYYY-MM-DD.` };
		} else if (value !== '' && field.type === 'dropdown' && !field.options.includes(value)) {
			return { problem: `"${field.label}" has a choice that is not offered.` };
		} else {
			answer[field.label] = value;
		}
	}
	return { data: answer };
}
