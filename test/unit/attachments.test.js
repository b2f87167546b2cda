'use strict';
/** The pure attachment functions: field mapping, multipart framing, where a received file is, token scope. */
const path = require('node:path');
const {
	attachmentMetadata,
	attachmentSource,
	closingLine,
	DEFAULT_FIELD_NAMES,
	downloadTarget,
	fileProblem,
	maxBytes,
	multipartLength,
	parseFieldList,
	partHeader,
	textParts,
} = require(path.join(__dirname, '../../dist/nodes/shared/attachments/encoding.js'));

test('binary field lists: commas or spaces, order kept, repeats dropped', () => {
	expect(parseFieldList(' data, invoice  scan,,data ')).toEqual(['data', 'invoice', 'scan']);
	expect(parseFieldList('')).toEqual([]);
});

test('metadata: mapped names, an empty name leaves the field out, extra fields last', () => {
	const file = { fileName: 'a.pdf', mimeType: 'application/pdf', size: 3 };
	expect(attachmentMetadata(file, DEFAULT_FIELD_NAMES, {})).toEqual({
		name: 'a.pdf',
		mime_type: 'application/pdf',
		size: 3,
	});
	expect(
		attachmentMetadata(
			file,
			{ ...DEFAULT_FIELD_NAMES, name: 'filename', size: '' },
			{ kind: 'doc' },
		),
	).toEqual({ filename: 'a.pdf', mime_type: 'application/pdf', kind: 'doc' });
});

test('size limit: MB to bytes, 0 for none, empty and oversized files named', () => {
	expect(maxBytes(25)).toBe(25 * 1024 * 1024);
	expect(maxBytes(0)).toBe(Infinity);
	expect(maxBytes('x')).toBe(25 * 1024 * 1024);
	expect(fileProblem(0, 10)).toBe('is an empty file (0 bytes)');
	expect(fileProblem(2048, 1024)).toBe(
		'is 2.0 KB, over the limit of 1.0 KB (option Max Attachment Size)',
	);
	expect(fileProblem(1024, 1024)).toBeUndefined();
});

test('multipart: the announced length is the length of the framed body', () => {
	const file = {
		field: 'data',
		fileName: 'ä "q".bin',
		mimeType: 'application/octet-stream',
		size: 5,
	};
	const parts = [
		...textParts({ conversation_id: 'c', message: 'hé', attachments: [{ name: 'x', size: 5 }] }),
		{ name: 'attachments[0][data]', file, index: 0 },
	];
	const body = Buffer.concat([
		...parts.flatMap((part) => [
			Buffer.from(partHeader('B', part)),
			'file' in part ? Buffer.alloc(5) : Buffer.from(part.value),
			Buffer.from('\r\n'),
		]),
		Buffer.from(closingLine('B')),
	]);
	expect(multipartLength('B', parts)).toBe(body.length);
	expect(parts.map((p) => p.name)).toEqual([
		'conversation_id',
		'message',
		'attachments[0][name]',
		'attachments[0][size]',
		'attachments[0][data]',
	]);
	expect(partHeader('B', parts[4])).toBe(
		'--B\r\nContent-Disposition: form-data; name="attachments[0][data]"; filename="ä %22q%22.bin"\r\nContent-Type: application/octet-stream\r\n\r\n',
	);
});

test('a received attachment: the named URL field, else url, download_url, href, else inline data', () => {
	expect(attachmentSource({ href: 'h', download_url: 'd' }, '')).toEqual({
		url: 'd',
		field: 'download_url',
	});
	expect(attachmentSource({ url: 'u', link: 'l' }, 'link')).toEqual({ url: 'l', field: 'link' });
	expect(attachmentSource({ content: 'aGk=' }, '')).toEqual({ data: 'aGk=', field: 'content' });
	expect(attachmentSource({ name: 'n' }, '')).toEqual({
		problem: 'has no URL (url, download_url, href) and no inline data (data, content, base64)',
	});
	expect(attachmentSource('x', '')).toEqual({ problem: 'is not an object' });
});

test('the token goes only to the Base URL’s origin; only http(s) is fetched', () => {
	const base = 'https://api.example.com/chat';
	expect(downloadTarget('https://api.example.com/files/1', base)).toEqual({
		url: 'https://api.example.com/files/1',
		withToken: true,
	});
	expect(downloadTarget('/files/1', base)).toEqual({
		url: 'https://api.example.com/files/1',
		withToken: true,
	});
	for (const other of [
		'http://api.example.com/files/1', // another scheme
		'https://api.example.com:8443/files/1', // another port
		'https://cdn.example.com/files/1',
		'https://api.example.com.evil.test/files/1',
	]) {
		expect(downloadTarget(other, base)).toMatchObject({ withToken: false });
	}
	expect(downloadTarget('file:///etc/passwd', base)).toEqual({
		problem: 'is a file: URL (only http and https are fetched)',
	});
	expect(downloadTarget('data:text/plain,hi', base)).toMatchObject({ problem: expect.any(String) });
	expect(downloadTarget('https://u:p@api.example.com/f', base)).toEqual({
		problem: 'holds a user name or password',
	});
	// A redirect's relative Location is read against the URL that answered.
	expect(downloadTarget('b', base, 'https://cdn.example.com/x/a')).toEqual({
		url: 'https://cdn.example.com/x/b',
		withToken: false,
	});
});

test('the trigger’s download budget: three quarters of the interval (of 2 min at most), whole seconds', () => {
	const { downloadBudget } = require(
		path.join(__dirname, '../../dist/nodes/shared/attachments/triggerDownloads.js'),
	);
	const seconds = (intervalS) => downloadBudget(intervalS * 1000, 0).ms / 1000;
	expect([5, 10, 15, 60, 120, 3600].map(seconds)).toEqual([3, 7, 11, 45, 90, 90]);
	expect(downloadBudget(15_000, 1_000)).toEqual({ deadline: 12_000, ms: 11_000 });
});
