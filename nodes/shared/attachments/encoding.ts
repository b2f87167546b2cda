/**
 * Pure: how attachments are written on the wire and read back. The spec names no attachment field, so
 * the names are a mapping (defaults below) and a service's own extra fields can be added.
 */

/** The wire names of an attachment's fields. */
export interface AttachmentFieldNames {
	name: string;
	mimeType: string;
	size: string;
	data: string;
	url: string;
}

export const DEFAULT_FIELD_NAMES: AttachmentFieldNames = {
	name: 'name',
	mimeType: 'mime_type',
	size: 'size',
	data: 'data',
	url: 'url',
};

/** Where a received attachment's file is, tried in this order when no field is named. */
export const DEFAULT_URL_FIELDS = ['url', 'download_url', 'href'];

/** Fields tried for a received attachment's inline base64 content, its name and its type. */
const DATA_FIELDS = ['data', 'content', 'base64'];
const NAME_FIELDS = ['name', 'file_name', 'filename'];
const MIME_FIELDS = ['mime_type', 'content_type', 'mimetype', 'type'];

export const DEFAULT_MAX_SIZE_MB = 25;

/** A file to send, as read from an item's binary field (its bytes are read later). */
export interface OutgoingFile {
	/** The binary field it came from. */
	field: string;
	fileName: string;
	mimeType: string;
	size: number;
}

/** The metadata part of one attachment object: the mapped names, then the user's extra fields. */
export function attachmentMetadata(
	file: { fileName: string; mimeType: string; size: number },
	names: AttachmentFieldNames,
	extra: Record<string, string>,
): Record<string, string | number> {
	const record: Record<string, string | number> = {};
	if (names.name) record[names.name] = file.fileName;
	if (names.mimeType) record[names.mimeType] = file.mimeType;
	if (names.size) record[names.size] = file.size;
	return { ...record, ...extra };
}

/** Names of binary fields typed as `data, invoice` (commas or spaces), in order, without repeats. */
export function parseFieldList(text: string): string[] {
	return [
		...new Set(
			String(text ?? '')
				.split(/[,\s]+/)
				.map((name) => name.trim())
				.filter((name) => name !== ''),
		),
	];
}

/** "4.2 MB" style, for errors and output. */
export function describeSize(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The size limit in bytes from the option in MB; 0 or less means none. */
export function maxBytes(megabytes: unknown): number {
	const value = Number(megabytes);
	if (!Number.isFinite(value)) return DEFAULT_MAX_SIZE_MB * 1024 * 1024;
	return value <= 0 ? Infinity : Math.floor(value * 1024 * 1024);
}

/** Why a file cannot be sent, or undefined. */
export function fileProblem(size: number, limit: number): string | undefined {
	if (size === 0) return 'is an empty file (0 bytes)';
	if (size > limit)
		return `is ${describeSize(size)}, over the limit of ${describeSize(limit)} (option Max Attachment Size)`;
	return undefined;
}

// ---- multipart/form-data ----

/** One part of a multipart body: a text field, or a file whose bytes are filled in later. */
export type Part =
	| { name: string; value: string }
	| { name: string; file: OutgoingFile; index: number };

/** Quotes a header parameter as browsers do (RFC 7578 4.2): `"` and line breaks percent-encoded. */
export function quoteParameter(value: string): string {
	return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/** The header block that opens a part (after the boundary line). */
export function partHeader(boundary: string, part: Part): string {
	const head = `--${boundary}\r\nContent-Disposition: form-data; name=${quoteParameter(part.name)}`;
	if ('file' in part) {
		return `${head}; filename=${quoteParameter(part.file.fileName)}\r\nContent-Type: ${part.file.mimeType}\r\n\r\n`;
	}
	return `${head}\r\n\r\n`;
}

export function closingLine(boundary: string): string {
	return `--${boundary}--\r\n`;
}

/** The byte length of a whole multipart body, known before any file is read. */
export function multipartLength(boundary: string, parts: Part[]): number {
	let total = Buffer.byteLength(closingLine(boundary));
	for (const part of parts) {
		total += Buffer.byteLength(partHeader(boundary, part)) + 2; // the part's closing CRLF
		total += 'file' in part ? part.file.size : Buffer.byteLength(part.value);
	}
	return total;
}

/**
 * Flattens form fields into multipart text parts with the same bracketed names the form encoding uses
 * (`attachments[0][name]`), leaving values unencoded as multipart sends them.
 */
export function textParts(fields: Record<string, unknown>): Part[] {
	const parts: Part[] = [];
	const walk = (key: string, value: unknown) => {
		if (value === undefined) return;
		if (value === null) parts.push({ name: key, value: '' });
		else if (Array.isArray(value)) {
			value.forEach((element, index) =>
				walk(
					element !== null && typeof element === 'object' ? `${key}[${index}]` : `${key}[]`,
					element,
				),
			);
		} else if (typeof value === 'object') {
			for (const [child, childValue] of Object.entries(value as object))
				walk(`${key}[${child}]`, childValue);
		} else parts.push({ name: key, value: String(value) });
	};
	for (const [name, value] of Object.entries(fields)) walk(name, value);
	return parts;
}

// ---- receiving ----

export type AttachmentSource =
	| { url: string; field: string }
	| { data: string; field: string }
	| { problem: string };

/** Where a received attachment's bytes are: its URL (the named field, else the first default one) or inline base64. */
export function attachmentSource(attachment: unknown, urlField: string): AttachmentSource {
	if (attachment === null || typeof attachment !== 'object' || Array.isArray(attachment)) {
		return { problem: 'is not an object' };
	}
	const record = attachment as Record<string, unknown>;
	const urlFields = urlField ? [urlField] : DEFAULT_URL_FIELDS;
	for (const field of urlFields) {
		const value = record[field];
		if (typeof value === 'string' && value.trim() !== '') return { url: value.trim(), field };
	}
	for (const field of DATA_FIELDS) {
		const value = record[field];
		if (typeof value === 'string' && value !== '') return { data: value, field };
	}
	return {
		problem: `has no URL (${urlFields.join(', ')}) and no inline data (${DATA_FIELDS.join(', ')})`,
	};
}

export function attachmentName(attachment: unknown): string | undefined {
	return firstText(attachment, NAME_FIELDS);
}

export function attachmentMimeType(attachment: unknown): string | undefined {
	const value = firstText(attachment, MIME_FIELDS);
	return value && /^[\w.+-]+\/[\w.+-]+/.test(value) ? value : undefined;
}

function firstText(attachment: unknown, fields: string[]): string | undefined {
	if (attachment === null || typeof attachment !== 'object') return undefined;
	for (const field of fields) {
		const value = (attachment as Record<string, unknown>)[field];
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	}
	return undefined;
}

/**
 * Whether a URL may be fetched, and with the access token: only http(s); the token only on the Base URL's
 * own origin (scheme, host and port). A relative URL is read against the Base URL (a redirect's
 * Location against the URL that answered it).
 */
export function downloadTarget(
	url: string,
	baseUrl: string,
	relativeTo = `${baseUrl}/`,
): { url: string; withToken: boolean } | { problem: string } {
	let parsed: URL;
	try {
		parsed = new URL(url, relativeTo);
	} catch {
		return { problem: 'is not a URL' };
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
		return { problem: `is a ${parsed.protocol} URL (only http and https are fetched)` };
	}
	if (parsed.username || parsed.password) return { problem: 'holds a user name or password' };
	return { url: parsed.href, withToken: parsed.origin === new URL(baseUrl).origin };
}

/** A URL as errors show it: origin and path, never its query (signed URLs carry secrets there). */
export function describeUrl(url: string): string {
	try {
		const parsed = new URL(url);
		return `${parsed.origin}${parsed.pathname}`;
	} catch {
		return '(not a URL)';
	}
}

/** Whether text is plain base64 (or base64url), so inline data is not mistaken for something else. */
export function isBase64(text: string): boolean {
	return /^[A-Za-z0-9+/_-]*={0,2}$/.test(text.replace(/\s+/g, ''));
}

/** The binary field of a message's n-th attachment. */
export function binaryFieldName(prefix: string, index: number): string {
	return `${prefix}${index}`;
}
