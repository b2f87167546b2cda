'use strict';
/**
 * A message's attachments downloaded into binary fields through n8n-core's real execution contexts against the
 * sandbox (Get with Download Attachments, and a reply's attachments in Send and Wait for Reply), the token kept
 * to the Base URL's origin.
 */
const { startMessagingRun } = require('../harness/n8n');
const { startWithAnn, messageRunners, file, sha256 } = require('../harness/attachments');
const { byId, TOKEN } = require('../harness/sandbox');

let sandbox;
let credentials;
const start = async (options = {}) => {
	({ sandbox, credentials } = await startWithAnn(options));
};
afterEach(() => sandbox?.stop());
const { run, send } = messageRunners(() => credentials);

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
