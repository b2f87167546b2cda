/**
 * Attachments to send: the item's own binary fields (never item 0's), URLs, and the JSON list, turned
 * into the request's `attachments` (form fields with base64 data) or a multipart/form-data body.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ApiRequest } from '../transport';
import {
	attachmentMetadata,
	DEFAULT_FIELD_NAMES,
	fileProblem,
	maxBytes,
	parseFieldList,
	textParts,
	type AttachmentFieldNames,
	type Part,
} from './encoding';
import { inputError } from '../inputError';
import { formBody, formValue, multipartBody, type FileToSend } from './uploadBody';

export interface UploadSettings {
	multipart: boolean;
	names: AttachmentFieldNames;
	extra: Record<string, string>;
	limit: number;
}

/** The attachment parameters of Send (`additionalFields`) or Update (`updateFields`). */
export interface AttachmentInput {
	/** Whether any attachment parameter is set (Update then replaces the message's attachments). */
	given: boolean;
	json: IDataObject[];
	files: FileToSend[];
	urls: Array<{ url: string; fileName?: string }>;
	settings: UploadSettings;
}

export function readUploadSettings(context: IExecuteFunctions, itemIndex: number): UploadSettings {
	const mapping = context.getNodeParameter(
		'options.attachmentFieldNames.names',
		itemIndex,
		{},
	) as Partial<AttachmentFieldNames>;
	const names = { ...DEFAULT_FIELD_NAMES };
	for (const key of Object.keys(names) as Array<keyof AttachmentFieldNames>) {
		if (typeof mapping[key] === 'string') names[key] = mapping[key].trim();
	}
	if (names.data === '')
		throw inputError(context, itemIndex, 'Attachment Field Names', 'has an empty Data field name');
	const rows = context.getNodeParameter('options.attachmentExtraFields.field', itemIndex, []) as
		| Array<{ name?: string; value?: string }>
		| undefined;
	const extra: Record<string, string> = {};
	for (const row of rows ?? []) {
		const name = String(row.name ?? '').trim();
		if (name === '')
			throw inputError(context, itemIndex, 'Extra Attachment Fields', 'has a row without a name');
		extra[name] = String(row.value ?? '');
	}
	return {
		multipart:
			context.getNodeParameter('options.attachmentUpload', itemIndex, 'form') === 'multipart',
		names,
		extra,
		limit: maxBytes(context.getNodeParameter('options.maxAttachmentSize', itemIndex, 25)),
	};
}

/** Reads and checks every attachment parameter of the item, before anything is sent. */
export async function readAttachmentInput(
	context: IExecuteFunctions,
	itemIndex: number,
	collection: 'additionalFields' | 'updateFields',
): Promise<AttachmentInput> {
	const fields = context.getNodeParameter(collection, itemIndex, {}) as IDataObject;
	const settings = readUploadSettings(context, itemIndex);
	const json = getAttachments(context, `${collection}.attachments`, itemIndex) ?? [];
	const files: AttachmentInput['files'] = [];
	if (fields.binaryAttachments !== undefined) {
		const label = 'Attachments From Binary Data';
		const names = parseFieldList(String(fields.binaryAttachments));
		if (names.length === 0) throw inputError(context, itemIndex, label, 'names no binary field');
		const binaries = context.getInputData()[itemIndex]?.binary ?? {};
		for (const field of names) {
			const binary = binaries[field];
			if (!binary) {
				const present = Object.keys(binaries);
				throw inputError(
					context,
					itemIndex,
					label,
					`names the binary field "${field}", which the item does not have (${present.length ? `it has ${present.map((p) => `"${p}"`).join(', ')}` : 'it has no binary data'})`,
				);
			}
			const file: FileToSend['file'] = {
				field,
				fileName:
					binary.fileName || `${field}${binary.fileExtension ? `.${binary.fileExtension}` : ''}`,
				mimeType: binary.mimeType || 'application/octet-stream',
				size: await binarySize(context, binary),
			};
			const problem = fileProblem(file.size, settings.limit);
			if (problem) {
				throw inputError(context, itemIndex, label, `"${field}" (${file.fileName}) ${problem}`);
			}
			files.push({ file, binary });
		}
	}
	const urls: AttachmentInput['urls'] = [];
	if (fields.urlAttachments !== undefined) {
		const rows = ((fields.urlAttachments as IDataObject).attachment ?? []) as IDataObject[];
		for (const [row, { url, fileName }] of rows.entries()) {
			const text = typeof url === 'string' ? url.trim() : '';
			let parsed: URL | undefined;
			try {
				parsed = new URL(text);
			} catch {
				parsed = undefined;
			}
			if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
				throw inputError(
					context,
					itemIndex,
					'Attachments From URLs',
					`row ${row + 1}: "${text.slice(0, 100)}" is not an http(s) URL`,
				);
			}
			const name = typeof fileName === 'string' && fileName.trim() ? fileName.trim() : undefined;
			urls.push({ url: parsed.href, fileName: name });
		}
	}
	const given =
		fields.attachments !== undefined ||
		fields.binaryAttachments !== undefined ||
		fields.urlAttachments !== undefined;
	return { given, json, files, urls, settings };
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
			throw inputError(
				context,
				itemIndex,
				'Attachments',
				'is not valid JSON (expected an array of objects)',
			);
		}
	}
	if (
		!Array.isArray(value) ||
		!value.every((a) => a !== null && typeof a === 'object' && !Array.isArray(a))
	) {
		throw inputError(
			context,
			itemIndex,
			'Attachments',
			'must be a JSON array of objects, like [{"name": "report.pdf"}]',
		);
	}
	return value as IDataObject[];
}

/** The file's size in bytes without reading it: n8n records it when it stores the file. */
async function binarySize(context: IExecuteFunctions, binary: IBinaryData): Promise<number> {
	if (typeof binary.bytes === 'number') return binary.bytes;
	if (binary.id) return (await context.helpers.getBinaryMetadata(binary.id)).fileSize;
	return Buffer.byteLength(binary.data ?? '', 'base64');
}

/**
 * The request with its attachments: form fields (base64 data in the Data field) by default, or a
 * multipart body whose file parts are named like the Data field (`attachments[0][data]`). With files, the
 * body is read as it is sent (uploadBody.ts).
 */
export async function withAttachments(
	context: IExecuteFunctions,
	itemIndex: number,
	request: ApiRequest & { body: IDataObject },
	input: AttachmentInput,
): Promise<ApiRequest> {
	const { names, extra, multipart } = input.settings;
	const list: IDataObject[] = [...input.json];
	const fileIndex: number[] = [];
	for (const { file, binary } of input.files) {
		const record: IDataObject = attachmentMetadata(file, names, extra);
		if (!multipart) record[names.data] = await formValue(context, binary);
		fileIndex.push(list.length);
		list.push(record);
	}
	for (const { url, fileName } of input.urls) {
		const record: IDataObject = { [names.url || 'url']: url, ...extra };
		if (fileName && names.name) record[names.name] = fileName;
		list.push(record);
	}
	const body = { ...request.body };
	if (input.given)
		body.attachments = list.length > 0 || request.method === 'PUT' ? list : undefined;
	if (input.files.length === 0) return { ...request, body };
	const { method, path, query } = request;
	if (!multipart)
		return { method, path, query, rawBody: await formBody(context, body, input.files) };

	const parts: Part[] = textParts(body);
	input.files.forEach(({ file }, i) =>
		parts.push({ name: `attachments[${fileIndex[i]}][${names.data}]`, file, index: i }),
	);
	return {
		method,
		path,
		query,
		rawBody: await multipartBody(context, itemIndex, parts, input.files),
	};
}

/** The service's record as output: the sent files' base64, should the service echo it, left out. */
export function outputRecord(record: IDataObject, input: AttachmentInput): IDataObject {
	const { settings } = input;
	if (input.files.length === 0 || !Array.isArray(record.attachments)) return record;
	return {
		...record,
		attachments: (record.attachments as unknown[]).map((a) => {
			if (a === null || typeof a !== 'object' || !(settings.names.data in a)) return a;
			const rest = { ...(a as IDataObject) };
			delete rest[settings.names.data];
			return rest;
		}),
	};
}
