'use strict';
/**
 * The sandbox's attachment files: attachments sent with bytes (base64 in a form field, or a multipart
 * file part) are stored and given a URL; the file is served at that URL, on the service's own origin
 * (bearer token required) or on the second origin (no token; where the token must never arrive).
 * Quirks (quirks.js validateQuirks) make it act out services that differ:
 *   attachmentFields: names of the fields it reads and writes, e.g. { name: 'filename', data: 'content' }
 *   attachmentUpload: 'any' | 'multipart' (base64 data refused) | 'url' (only URLs, bytes refused)
 *   attachmentsOrigin: 'same' | 'other' (files served from the second origin)
 *   inlineAttachments: true (attachments come back with their base64 data, without a URL)
 */
const { invalid } = require('./store');

const DEFAULT_FIELDS = {
	name: 'name',
	mimeType: 'mime_type',
	size: 'size',
	data: 'data',
	url: 'url',
};
const UPLOAD_MODES = ['any', 'multipart', 'url'];

function createFileStore() {
	const files = new Map();
	let next = 1;
	return {
		files,
		/** The stored attachments of a request: each one with bytes becomes a file with a URL. */
		ingest(value, uploads, quirks, origins) {
			if (value === undefined || value === null || value === '') return value;
			const list = Array.isArray(value)
				? value
				: typeof value === 'object'
					? Object.values(value)
					: null;
			if (!list) return value; // the store refuses it
			const fields = { ...DEFAULT_FIELDS, ...quirks.attachmentFields };
			const mode = quirks.attachmentUpload ?? 'any';
			return list.map((attachment, index) => {
				if (attachment === null || typeof attachment !== 'object') return attachment;
				const upload = uploads.get(`attachments[${index}][${fields.data}]`);
				const inline = attachment[fields.data];
				if (upload === undefined && (inline === undefined || inline === '')) {
					if (mode === 'url' && typeof attachment[fields.url] !== 'string')
						throw invalid(`attachments[${index}] needs a ${fields.url}`);
					return attachment;
				}
				if (mode === 'url') throw invalid('attachments are taken as URLs only');
				if (upload === undefined && mode === 'multipart')
					throw invalid('attachments must be uploaded as multipart/form-data files');
				if (
					upload === undefined &&
					(typeof inline !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(inline))
				)
					throw invalid(`attachments[${index}][${fields.data}] is not base64`);
				const bytes = upload ? upload.bytes : Buffer.from(inline, 'base64');
				if (bytes.length === 0) throw invalid(`attachments[${index}] is an empty file`);
				const name = String(attachment[fields.name] ?? upload?.fileName ?? `file${index}`);
				const mimeType = String(
					attachment[fields.mimeType] ?? upload?.contentType ?? 'application/octet-stream',
				);
				const declared = attachment[fields.size];
				if (declared !== undefined && declared !== '' && Number(declared) !== bytes.length) {
					throw invalid(
						`attachments[${index}][${fields.size}] is ${declared}, the file has ${bytes.length} bytes`,
					);
				}
				const id = `att_${String(next++).padStart(6, '0')}`;
				files.set(id, { bytes, name, mimeType });
				const { [fields.data]: _data, ...rest } = attachment;
				const stored = {
					...rest,
					id,
					[fields.name]: name,
					[fields.mimeType]: mimeType,
					[fields.size]: bytes.length,
				};
				if (quirks.inlineAttachments) return { ...stored, [fields.data]: bytes.toString('base64') };
				const origin = quirks.attachmentsOrigin === 'other' ? origins.other : origins.own;
				return { ...stored, [fields.url]: `${origin}/files/${id}/${encodeURIComponent(name)}` };
			});
		},
		/** Stores a file as a test or the demo seeds it; returns its path (/files/<id>/<name>). */
		add(bytes, name, mimeType = 'application/octet-stream') {
			const id = `att_${String(next++).padStart(6, '0')}`;
			files.set(id, { bytes: Buffer.from(bytes), name, mimeType });
			return `/files/${id}/${encodeURIComponent(name)}`;
		},
		/** Answers GET /files/<id>/<name>, or returns false when the path is not a file's. */
		serve(path, res) {
			const match = /^\/files\/(att_\d+)(?:\/|$)/.exec(path);
			const file = match && files.get(match[1]);
			if (!file) return false;
			res.writeHead(200, {
				'content-type': file.mimeType,
				'content-length': file.bytes.length,
				'content-disposition': `attachment; filename="${file.name.replace(/"/g, '')}"`,
			});
			res.end(file.bytes);
			return true;
		},
	};
}

/** A multipart/form-data body as text fields (a qs-style query string) and file uploads by part name. */
function parseMultipart(contentType, raw) {
	const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
	if (!boundary) throw invalid('multipart body without a boundary');
	const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
	const fields = [];
	const uploads = new Map();
	let at = raw.indexOf(delimiter);
	if (at === -1) throw invalid('multipart body without its boundary');
	for (;;) {
		at += delimiter.length;
		if (raw.subarray(at, at + 2).toString() === '--') break;
		const headEnd = raw.indexOf('\r\n\r\n', at);
		if (headEnd === -1) throw invalid('multipart part without headers');
		const head = raw.subarray(at + 2, headEnd).toString('utf8');
		const next = raw.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headEnd + 4);
		if (next === -1) throw invalid('multipart part without its end');
		const content = raw.subarray(headEnd + 4, next);
		const name = /name="([^"]*)"/i.exec(head)?.[1];
		if (name === undefined) throw invalid('multipart part without a name');
		const fileName = /filename="([^"]*)"/i.exec(head)?.[1];
		if (fileName !== undefined) {
			uploads.set(name, {
				fileName: decodeQuoted(fileName),
				contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1].trim(),
				bytes: Buffer.from(content),
			});
		} else
			fields.push(
				`${encodeURIComponent(decodeQuoted(name))}=${encodeURIComponent(content.toString('utf8'))}`,
			);
		at = next + 2;
	}
	return { query: fields.join('&'), uploads };
}

function decodeQuoted(text) {
	return text.replace(/%22/g, '"').replace(/%0D/g, '\r').replace(/%0A/g, '\n');
}

function validateAttachmentQuirks(quirks) {
	if (quirks.attachmentUpload !== undefined && !UPLOAD_MODES.includes(quirks.attachmentUpload))
		throw new Error(`quirks.attachmentUpload is one of ${UPLOAD_MODES.join(', ')}`);
	if (![undefined, 'same', 'other'].includes(quirks.attachmentsOrigin))
		throw new Error("quirks.attachmentsOrigin is 'same' or 'other'");
	const fields = quirks.attachmentFields;
	if (
		fields !== undefined &&
		(typeof fields !== 'object' || Object.keys(fields).some((k) => !(k in DEFAULT_FIELDS)))
	)
		throw new Error(
			`quirks.attachmentFields maps ${Object.keys(DEFAULT_FIELDS).join(', ')} to names`,
		);
}

module.exports = { createFileStore, parseMultipart, validateAttachmentQuirks };
