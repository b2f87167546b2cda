'use strict';
/**
 * Attachments through n8n-core's real execution contexts against the sandbox: files from the item's binary
 * data on the wire (form fields with base64, or multipart), bad input refused before anything is sent,
 * and a message's attachments downloaded into binary fields, the token kept to the Base URL's origin.
 */
const crypto = require('node:crypto');
const { runMessagingNode, startMessagingRun } = require('../harness/n8n');
const { startSandbox, byId, wire, TOKEN } = require('../harness/sandbox');

let sandbox;
let credentials;
const start = async (options = {}) => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none', ...options }));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	sandbox.clearRequests();
};
afterEach(() => sandbox?.stop());

const run = (parameters, extra = {}) =>
	runMessagingNode({ parameters: { resource: 'message', ...parameters }, credentials, ...extra });
const send = (additionalFields, options = {}, input) =>
	run(
		{
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'files',
			additionalFields,
			options,
		},
		input ? { input } : {},
	);
const file = (text, fileName, mimeType = 'text/plain') => ({
	base64: Buffer.from(text).toString('base64'),
	fileName,
	mimeType,
});
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');

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

describe('Download Attachments', () => {
	const png = Buffer.from(
		'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
		'base64',
	);
	/** 5 MB of PDF-looking bytes that are not text (every byte value occurs). */
	const pdf = Buffer.concat([
		Buffer.from('%PDF-1.7\n'),
		Buffer.from(Array.from({ length: 5 * 1024 * 1024 }, (_, i) => (i * 7919 + (i >> 8)) & 255)),
	]);
	const get = (messageId, options = {}, extra = {}) =>
		run(
			{
				operation: 'get',
				messageId: byId(messageId),
				options: { downloadAttachments: true, ...options },
			},
			extra,
		);
	const binaryBytes = (item, field) => Buffer.from(item.binary[field].data, 'base64');

	test.each(['form', 'multipart'])(
		'round trip (%s): a PNG and a 5 MB PDF from binary, sent, read back byte-identical',
		async (upload) => {
			await start();
			const input = [
				{
					$binary: {
						image: { base64: png.toString('base64'), fileName: 'dot.png', mimeType: 'image/png' },
						report: {
							base64: pdf.toString('base64'),
							fileName: 'report.pdf',
							mimeType: 'application/pdf',
						},
					},
				},
			];
			const sent = await send(
				{ binaryAttachments: 'image, report' },
				{ attachmentUpload: upload },
				input,
			);
			expect(sent.error).toBeUndefined();
			const { items, error } = await get(sent.items[0].json.id);
			expect(error).toBeUndefined();
			expect(Object.keys(items[0].binary)).toEqual(['attachment_0', 'attachment_1']);
			expect(items[0].binary.attachment_0).toMatchObject({
				fileName: 'dot.png',
				mimeType: 'image/png',
			});
			expect(items[0].binary.attachment_1).toMatchObject({
				fileName: 'report.pdf',
				mimeType: 'application/pdf',
			});
			expect(sha256(binaryBytes(items[0], 'attachment_0'))).toBe(sha256(png));
			expect(sha256(binaryBytes(items[0], 'attachment_1'))).toBe(sha256(pdf));
			// Files on the service's own origin are fetched with the bearer token.
			const fetches = sandbox.requests.filter((r) => r.path.startsWith('/files/'));
			expect(fetches).toHaveLength(2);
			expect(fetches.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
		},
	);

	const storedMessage = (attachments) =>
		sandbox.store.sendMessage('ct_ann', {
			conversation_id: 'conv_00000001',
			message: 'm',
			attachments,
		}).id;

	test('a file on another origin is fetched without the token, also when the own origin redirects there', async () => {
		await start({ quirks: { attachmentsOrigin: 'other' } });
		const sent = await send({ binaryAttachments: 'data' }, {}, [
			{ $binary: { data: file('far away', 'far.txt') } },
		]);
		expect(sent.items[0].json.attachments[0].url.startsWith(sandbox.other.url)).toBe(true);
		sandbox.set({ quirks: {} });
		const ownUrl = `${sandbox.url}/files/att_000001/far.txt`;
		const id = storedMessage([{ name: 'again.txt', url: ownUrl }]);
		sandbox.failNext({ match: { path: '/files/*' }, redirect: 302, to: 'other' });
		// The second origin is on loopback, an internal address (attachmentAddresses.test.js).
		const first = await get(sent.items[0].json.id, { allowPrivateAddresses: true });
		const second = await get(id, { allowPrivateAddresses: true });
		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(binaryBytes(first.items[0], 'attachment_0').toString()).toBe('far away');
		expect(binaryBytes(second.items[0], 'attachment_0').toString()).toBe('far away');
		expect(sandbox.other.requests.map((r) => r.path)).toEqual([
			'/files/att_000001/far.txt',
			'/files/att_000001/far.txt',
		]);
		expect(sandbox.other.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
		expect(JSON.stringify(sandbox.other.requests)).not.toContain(TOKEN);
	});

	test('inline base64 attachments, and a URL field named by the service', async () => {
		await start({ quirks: { inlineAttachments: true } });
		const a = storedMessage([
			{ name: 'in.txt', mime_type: 'text/plain', data: Buffer.from('inline').toString('base64') },
		]);
		const b = storedMessage([
			{ filename: 'x.bin', href: 'http://127.0.0.1:9/never', link: `${sandbox.url}/files/none` },
		]);
		const inline = await get(a);
		expect(binaryBytes(inline.items[0], 'attachment_0').toString()).toBe('inline');
		expect(inline.items[0].binary.attachment_0).toMatchObject({
			fileName: 'in.txt',
			mimeType: 'text/plain',
		});
		const named = await get(b, { attachmentUrlField: 'link' });
		expect(named.error.message).toMatch(
			/Attachment 0 of message msg_00000002 \(x.bin\) could not be downloaded: http:\/\/127.0.0.1:\d+\/files\/none answered 404 \[item 0\]/,
		);
	});

	test('Get Many: each message its own attachments; a message without any has no binary', async () => {
		await start();
		storedMessage([]);
		await send({ binaryAttachments: 'data' }, {}, [{ $binary: { data: file('one', '1.txt') } }]);
		const { items, error } = await run({
			operation: 'getAll',
			returnAll: true,
			filters: {},
			options: { downloadAttachments: true },
		});
		expect(error).toBeUndefined();
		const byText = Object.fromEntries(
			items.map((i) => [i.json.id, i.binary && binaryBytes(i, 'attachment_0').toString()]),
		);
		expect(byText).toEqual({ msg_00000001: undefined, msg_00000002: 'one' });
	});

	test.each([
		[
			'no URL and no data',
			[{ name: 'n.txt' }],
			/Attachment 0 of message msg_00000001 \(n.txt\) could not be downloaded: has no URL \(url, download_url, href\) and no inline data/,
		],
		[
			'a file: URL',
			[{ url: 'file:///etc/passwd' }],
			/could not be downloaded: its url is a file: URL \(only http and https are fetched\)/,
		],
		['a data: URL', [{ url: 'data:text/plain;base64,aGk=' }], /its url is a data: URL/],
		['data that is not base64', [{ data: 'not base64!' }], /its data is not base64/],
		[
			'a file over the limit',
			[{ data: Buffer.alloc(3000).toString('base64') }],
			/it is 2.9 KB, over the limit of 1.0 KB/,
		],
	])(
		'%s: an error naming the message and the attachment; Continue On Fail gives that item’s error',
		async (_name, attachments, message) => {
			await start();
			storedMessage(attachments);
			const failed = await get('msg_00000001', { maxAttachmentSize: 0.001 });
			expect(failed.error.message).toMatch(message);
			const kept = await get(
				'msg_00000001',
				{ maxAttachmentSize: 0.001 },
				{ continueOnFail: true },
			);
			expect(kept.items).toHaveLength(1);
			expect(kept.items[0].json.error).toMatch(message);
		},
	);

	test('a file over the limit is refused by its announced length, before its body is read', async () => {
		await start();
		const big = await send({ binaryAttachments: 'data' }, {}, [
			{ $binary: { data: file('x'.repeat(5000), 'big.txt') } },
		]);
		const { error } = await get(big.items[0].json.id, { maxAttachmentSize: 0.001 });
		expect(error.message).toMatch(
			/big.txt\) could not be downloaded: it is 4.9 KB, over the limit of 1.0 KB/,
		);
	});

	test('a redirect to a file: URL is refused, and nothing is read', async () => {
		await start();
		const sent = await send({ binaryAttachments: 'data' }, {}, [
			{ $binary: { data: file('x', 'r.txt') } },
		]);
		sandbox.failNext({
			match: { path: '/files/*' },
			redirect: 302,
			location: 'file:///etc/passwd',
		});
		const { error } = await get(sent.items[0].json.id);
		expect(error.message).toMatch(
			/\(r.txt\) could not be downloaded: it redirects to an address that is a file: URL/,
		);
	});

	test('a dropped download is retried; one that keeps failing is an error, the token never in it', async () => {
		await start();
		const sent = await send({ binaryAttachments: 'data' }, {}, [
			{ $binary: { data: file('retry me', 'r.txt') } },
		]);
		sandbox.failNext({ match: { path: '/files/*' }, drop: 'before' });
		const once = await get(sent.items[0].json.id);
		expect(binaryBytes(once.items[0], 'attachment_0').toString()).toBe('retry me');
		sandbox.failNext({ match: { path: '/files/*' }, status: 503, times: 3 });
		const failed = await get(sent.items[0].json.id);
		expect(failed.error.message).toMatch(
			/could not be downloaded: http:\/\/127.0.0.1:\d+\/files\/att_000001\/r.txt answered 503/,
		);
		expect(JSON.stringify(failed.error)).not.toContain(TOKEN);
	});
});

test('Send and Wait for Reply: the reply’s attachments as binary fields of the output item', async () => {
	await start();
	const waiting = startMessagingRun({
		parameters: {
			resource: 'message',
			operation: 'sendAndWaitForReply',
			conversationId: byId('conv_00000001'),
			message: 'Send me the scan',
			replyTimeout: 5,
			checkInterval: 0.05,
			options: { downloadAttachments: true },
		},
		credentials,
	});
	for (let i = 0; i < 400 && sandbox.store.messages.size === 0; i++)
		await new Promise((r) => setTimeout(r, 5));
	const url = sandbox.addFile('scan bytes', 'scan.pdf', 'application/pdf');
	sandbox.store.sendMessage('ct_ann', {
		conversation_id: 'conv_00000001',
		message: 'here',
		attachments: [{ name: 'scan.pdf', url }],
	});
	const { items, error } = await waiting.done;
	expect(error).toBeUndefined();
	expect(items[0].json).toMatchObject({ reply: { message: 'here' }, timedOut: false });
	expect(items[0].binary.attachment_0).toMatchObject({
		fileName: 'scan.pdf',
		mimeType: 'application/pdf',
	});
	expect(Buffer.from(items[0].binary.attachment_0.data, 'base64').toString()).toBe('scan bytes');
});
