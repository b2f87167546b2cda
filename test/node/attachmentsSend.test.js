'use strict';
/**
 * Send's attachments through n8n-core's real execution contexts against the sandbox: files from the item's
 * binary data on the wire (form fields with base64, or multipart), bad input refused before anything is sent.
 */
const { startWithAnn, messageRunners, file } = require('../harness/attachments');
const { byId, wire, TOKEN } = require('../harness/sandbox');

let sandbox;
let credentials;
const start = async (options = {}) => {
	({ sandbox, credentials } = await startWithAnn(options));
};
afterEach(() => sandbox?.stop());
const { run, send } = messageRunners(() => credentials);

describe('Send: attachments from binary data', () => {
	test('form fields: each item sends its own file (never item 0’s), base64 in attachments[0][data]', async () => {
		await start();
		const input = [
			{ json: { n: 0 }, $binary: { data: file('hello', 'a.txt') } },
			{ json: { n: 1 }, $binary: { data: file('world!', 'b b.txt') } },
		];
		const { items, error } = await send({ binaryAttachments: 'data' }, {}, input);
		expect(error).toBeUndefined();
		expect(wire(sandbox).map((r) => r.body)).toEqual([
			'conversation_id=conv_00000001&message=files&attachments[0][name]=a.txt&attachments[0][mime_type]=text%2Fplain&attachments[0][size]=5&attachments[0][data]=aGVsbG8%3D',
			'conversation_id=conv_00000001&message=files&attachments[0][name]=b%20b.txt&attachments[0][mime_type]=text%2Fplain&attachments[0][size]=6&attachments[0][data]=d29ybGQh',
		]);
		expect(items.map((i) => i.json.attachments[0].name)).toEqual(['a.txt', 'b b.txt']);
		expect(JSON.stringify(items)).not.toContain('aGVsbG8');
	});

	test('several fields, JSON attachments first, field names mapped and extra fields added', async () => {
		await start({
			quirks: { attachmentFields: { name: 'filename', mimeType: 'content_type', data: 'content' } },
		});
		const input = [{ $binary: { a: file('1', 'one.txt'), b: file('22', 'two.csv', 'text/csv') } }];
		const { error } = await send(
			{ binaryAttachments: 'b, a', attachments: '[{"url":"https://x.test/k"}]' },
			{
				attachmentFieldNames: {
					names: { name: 'filename', mimeType: 'content_type', size: '', data: 'content' },
				},
				attachmentExtraFields: { field: [{ name: 'kind', value: 'document' }] },
			},
			input,
		);
		expect(error).toBeUndefined();
		expect(decodeURIComponent(wire(sandbox)[0].body).split('&').slice(2)).toEqual([
			'attachments[0][url]=https://x.test/k',
			'attachments[1][filename]=two.csv',
			'attachments[1][content_type]=text/csv',
			'attachments[1][kind]=document',
			'attachments[1][content]=MjI=',
			'attachments[2][filename]=one.txt',
			'attachments[2][content_type]=text/plain',
			'attachments[2][kind]=document',
			'attachments[2][content]=MQ==',
		]);
		const stored = [...sandbox.files.values()].map((f) => [f.name, f.bytes.toString()]);
		expect(stored).toEqual([
			['two.csv', '22'],
			['one.txt', '1'],
		]);
	});

	test('multipart: text fields and one file part per file, named with the Data field', async () => {
		await start({ quirks: { attachmentUpload: 'multipart' } });
		const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);
		const input = [
			{
				$binary: {
					data: { base64: png.toString('base64'), fileName: 'p"x.png', mimeType: 'image/png' },
				},
			},
		];
		const { items, error } = await send(
			{ binaryAttachments: 'data' },
			{ attachmentUpload: 'multipart' },
			input,
		);
		expect(error).toBeUndefined();
		const request = sandbox.requests[0];
		const boundary = /^multipart\/form-data; boundary=(\S+)$/.exec(
			request.headers['content-type'],
		)[1];
		const expected = Buffer.concat([
			Buffer.from(
				[
					`--${boundary}`,
					'Content-Disposition: form-data; name="conversation_id"',
					'',
					'conv_00000001',
					`--${boundary}`,
					'Content-Disposition: form-data; name="message"',
					'',
					'files',
					`--${boundary}`,
					'Content-Disposition: form-data; name="attachments[0][name]"',
					'',
					'p"x.png',
					`--${boundary}`,
					'Content-Disposition: form-data; name="attachments[0][mime_type]"',
					'',
					'image/png',
					`--${boundary}`,
					'Content-Disposition: form-data; name="attachments[0][size]"',
					'',
					'10',
					`--${boundary}`,
					'Content-Disposition: form-data; name="attachments[0][data]"; filename="p%22x.png"',
					'Content-Type: image/png',
					'',
					'',
				].join('\r\n'),
			),
			png,
			Buffer.from(`\r\n--${boundary}--\r\n`),
		]);
		expect(request.bytes.equals(expected)).toBe(true);
		expect(Number(request.headers['content-length'])).toBe(expected.length);
		expect([...sandbox.files.values()][0].bytes.equals(png)).toBe(true);
		expect(items[0].json.attachments[0]).toMatchObject({
			name: 'p"x.png',
			mime_type: 'image/png',
			size: 10,
		});
	});

	test('a multipart-only service refuses base64 form fields: the error is reported, nothing sent as sent', async () => {
		await start({ quirks: { attachmentUpload: 'multipart' } });
		const { error } = await send({ binaryAttachments: 'data' }, {}, [
			{ $binary: { data: file('x', 'x.txt') } },
		]);
		expect(error.message).toMatch(/400|multipart/);
		expect(sandbox.store.messages.size).toBe(0);
	});

	const ok = { $binary: { data: file('ok', 'ok.txt') } };
	test.each([
		[
			'a missing binary field',
			{ binaryAttachments: 'data, scan' },
			[{ $binary: { data: file('a', 'a.txt'), scan: file('b', 'b.txt') } }, ok],
			{},
			/Attachments From Binary Data names the binary field "scan", which the item does not have \(it has "data"\) \[item 1\]/,
		],
		[
			'an item without binary data',
			{ binaryAttachments: 'data' },
			[ok, {}],
			{},
			/binary field "data", which the item does not have \(it has no binary data\) \[item 1\]/,
		],
		[
			'an empty file',
			{ binaryAttachments: 'data' },
			[ok, { $binary: { data: file('', 'e.txt') } }],
			{},
			/"data" \(e.txt\) is an empty file \(0 bytes\) \[item 1\]/,
		],
		[
			'a file over the limit',
			{ binaryAttachments: 'data' },
			[ok, { $binary: { data: file('x'.repeat(2000), 'big.txt') } }],
			{ maxAttachmentSize: 0.001 },
			/"data" \(big.txt\) is 2.0 KB, over the limit of 1.0 KB .*\[item 1\]/,
		],
		[
			'a URL that is not http(s)',
			{ urlAttachments: { attachment: [{ url: '={{ $json.url }}' }] } },
			[{ url: 'https://ok.test/a' }, { url: 'file:///etc/passwd' }],
			{},
			/Attachments From URLs row 1: "file:\/\/\/etc\/passwd" is not an http\(s\) URL \[item 1\]/,
		],
	])(
		'%s: an error naming the item and the field; item 1 sends nothing',
		async (_name, fields, input, options, message) => {
			await start();
			const { error, items } = await send(fields, options, input);
			expect(error.message).toMatch(message);
			expect(items).toEqual([]);
			// Items go one at a time, in order: item 0 was sent, item 1 was refused before its request.
			expect(sandbox.requests).toHaveLength(1);
			expect(JSON.stringify(error)).not.toContain(TOKEN);
		},
	);

	test('From URLs: the URL and name are sent for the service to fetch', async () => {
		await start();
		const { error } = await send({
			urlAttachments: {
				attachment: [
					{ url: 'https://files.test/a b.pdf', fileName: 'a.pdf' },
					{ url: 'http://x.test/' },
				],
			},
		});
		expect(error).toBeUndefined();
		expect(decodeURIComponent(wire(sandbox)[0].body).split('&').slice(2)).toEqual([
			'attachments[0][url]=https://files.test/a%20b.pdf',
			'attachments[0][name]=a.pdf',
			'attachments[1][url]=http://x.test/',
		]);
	});

	test('a URL-only service: bytes are refused with the service’s error, URLs go through', async () => {
		await start({ quirks: { attachmentUpload: 'url' } });
		const refused = await send({ binaryAttachments: 'data' }, {}, [
			{ $binary: { data: file('x', 'x.txt') } },
		]);
		expect(refused.error.message).toMatch(/URLs only/);
		expect(sandbox.store.messages.size).toBe(0);
		const { items, error } = await send({
			urlAttachments: { attachment: [{ url: 'https://files.test/a.pdf', fileName: 'a.pdf' }] },
		});
		expect(error).toBeUndefined();
		expect(items[0].json.attachments).toEqual([{ url: 'https://files.test/a.pdf', name: 'a.pdf' }]);
	});

	test('Update with a multipart upload, field names mapped', async () => {
		await start({ quirks: { attachmentFields: { data: 'file', name: 'filename' } } });
		sandbox.store.sendMessage('ct_me', { conversation_id: 'conv_00000001', message: 'm' });
		sandbox.clearRequests();
		const { items, error } = await run(
			{
				operation: 'update',
				messageId: byId('msg_00000001'),
				updateFields: { binaryAttachments: 'data' },
				options: {
					attachmentUpload: 'multipart',
					attachmentFieldNames: {
						names: {
							data: 'file',
							name: 'filename',
							mimeType: 'mime_type',
							size: 'size',
							url: 'url',
						},
					},
				},
			},
			{ input: [{ $binary: { data: file('multi', 'm.txt') } }] },
		);
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].method).toBe('PUT');
		expect(sandbox.requests[0].bytes.toString()).toContain(
			'Content-Disposition: form-data; name="attachments[0][file]"; filename="m.txt"\r\nContent-Type: text/plain\r\n\r\nmulti\r\n',
		);
		expect(items[0].json.attachments).toEqual([
			expect.objectContaining({ filename: 'm.txt', size: 5 }),
		]);
	});

	test('Update: attachments from binary data replace the message’s', async () => {
		await start();
		sandbox.store.sendMessage('ct_me', {
			conversation_id: 'conv_00000001',
			message: 'm',
			attachments: [{ name: 'old' }],
		});
		sandbox.clearRequests();
		const { items, error } = await run(
			{
				operation: 'update',
				messageId: byId('msg_00000001'),
				updateFields: { binaryAttachments: 'data' },
			},
			{ input: [{ $binary: { data: file('new', 'new.txt') } }] },
		);
		expect(error).toBeUndefined();
		expect(wire(sandbox)[0]).toMatchObject({
			method: 'PUT',
			body: expect.stringMatching(/^attachments\[0\]\[name\]=new.txt&/),
		});
		expect(items[0].json.attachments).toEqual([
			expect.objectContaining({ name: 'new.txt', size: 3 }),
		]);
	});
});
