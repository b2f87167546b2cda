'use strict';
/**
 * Attachments in n8n's filesystem binary-data mode (n8n 2.40's default outside queue mode): a file to send
 * is read through n8n's stream of the stored file, never as one buffer, and the request body handed to
 * n8n's HTTP client is a stream with the same bytes on the wire as before; a retry reads the file again;
 * a downloaded file goes into n8n's store as a stream. Nothing here measures time or memory.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');
const { startFileServer } = require('../harness/fileServer');

// n8n-core's own copies of the DI container and the HTTP client (the ones its helpers use).
const corePath = [path.dirname(require.resolve('n8n-core'))];
const { Container } = require(require.resolve('@n8n/di', { paths: corePath }));
const { OutboundHttp } = require(require.resolve('@n8n/backend-network', { paths: corePath }));
const { BinaryDataService } = require('n8n-core');

const service = Container.get(BinaryDataService);
const storage = path.join(process.env.N8N_USER_FOLDER, 'binary');
let sandbox;
let credentials;
/** What the node handed n8n's HTTP client as each request's body. */
let bodies;

beforeAll(async () => {
	Object.assign(service.config, { mode: 'filesystem', localStoragePath: storage });
	await service.init();
});
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	sandbox.clearRequests();
	bodies = [];
	const outbound = Container.get(OutboundHttp);
	const requests = outbound.requests.bind(outbound);
	jest.spyOn(outbound, 'requests').mockImplementation((...args) => {
		const client = requests(...args);
		return {
			...client,
			request: (options) => {
				if (options.method !== 'GET') bodies.push(options.body);
				return client.request(options);
			},
		};
	});
	jest.spyOn(service, 'getAsStream');
	jest.spyOn(service, 'getAsBuffer');
	jest.spyOn(service, 'store');
});
afterEach(async () => {
	jest.restoreAllMocks();
	await sandbox.stop();
});

/** Bytes whose base64 holds `+`, `/` and padding, which the form percent-encodes. */
const awkward = Buffer.from([0xfb, 0xef, 0xbe, 0xff, 0xff]);
const send = (options, input) =>
	runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'files',
			additionalFields: { binaryAttachments: 'data' },
			options,
		},
		credentials,
		input,
	});
const item = (bytes, fileName, mimeType = 'application/octet-stream') => ({
	$binary: { data: { base64: bytes.toString('base64'), fileName, mimeType } },
});
const isStream = (body) => !Buffer.isBuffer(body) && typeof body?.pipe === 'function';
const storedIds = () => service.getAsStream.mock.calls.map(([id]) => id);

test('form: the file is read as n8n’s stream, never whole; the body is a stream with the same bytes', async () => {
	const { items, error } = await send({}, [item(awkward, 'a.bin')]);
	expect(error).toBeUndefined();
	expect(awkward.toString('base64')).toBe('++++//8=');
	const request = sandbox.requests[0];
	expect(request.body).toBe(
		'conversation_id=conv_00000001&message=files&attachments[0][name]=a.bin&attachments[0][mime_type]=application%2Foctet-stream&attachments[0][size]=5&attachments[0][data]=%2B%2B%2B%2B%2F%2F8%3D',
	);
	expect(Number(request.headers['content-length'])).toBe(request.body.length);
	expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
	expect(bodies).toHaveLength(1);
	expect(isStream(bodies[0])).toBe(true);
	expect(service.getAsBuffer).not.toHaveBeenCalled();
	expect(storedIds().length).toBeGreaterThan(0);
	expect(storedIds().every((id) => id.startsWith('filesystem'))).toBe(true);
	expect(items[0].json.attachments[0]).toMatchObject({ name: 'a.bin', size: 5 });
});

test('multipart: the body is a stream, its bytes and Content-Length as before, a larger file intact', async () => {
	const pdf = crypto.randomBytes(300 * 1024);
	const { error } = await send({ attachmentUpload: 'multipart' }, [
		item(pdf, 'r.pdf', 'application/pdf'),
	]);
	expect(error).toBeUndefined();
	const request = sandbox.requests[0];
	const boundary = /boundary=(\S+)$/.exec(request.headers['content-type'])[1];
	const head = (name, value) =>
		`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
	const expected = Buffer.concat([
		Buffer.from(
			head('conversation_id', 'conv_00000001') +
				head('message', 'files') +
				head('attachments[0][name]', 'r.pdf') +
				head('attachments[0][mime_type]', 'application/pdf') +
				head('attachments[0][size]', String(pdf.length)) +
				`--${boundary}\r\nContent-Disposition: form-data; name="attachments[0][data]"; filename="r.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
		),
		pdf,
		Buffer.from(`\r\n--${boundary}--\r\n`),
	]);
	expect(request.bytes.equals(expected)).toBe(true);
	expect(Number(request.headers['content-length'])).toBe(expected.length);
	expect(isStream(bodies[0])).toBe(true);
	expect(service.getAsBuffer).not.toHaveBeenCalled();
	expect([...sandbox.files.values()][0].bytes.equals(pdf)).toBe(true);
});

test.each(['form', 'multipart'])(
	'%s: a retry (a 429) reads the file again and sends it whole',
	async (upload) => {
		const bytes = crypto.randomBytes(100 * 1024);
		sandbox.failNext({ match: { method: 'POST', path: '/v1/messages' }, status: 429 });
		const { error } = await send({ attachmentUpload: upload }, [item(bytes, 'x.bin')]);
		expect(error).toBeUndefined();
		expect(sandbox.requests.map((r) => r.status)).toEqual([429, 200]);
		expect(bodies).toHaveLength(2);
		expect(bodies[0]).not.toBe(bodies[1]);
		// Each attempt opened the file anew (the form counts its length once more, before the first).
		const opened = service.getAsStream.mock.calls.length;
		expect(opened).toBeGreaterThanOrEqual(2);
		expect([...sandbox.files.values()][0].bytes.equals(bytes)).toBe(true);
	},
);

describe('Download Attachments', () => {
	let files;
	beforeEach(async () => {
		files = await startFileServer();
	});
	afterEach(() => files.stop());

	const get = (attachments, options = {}) => {
		const id = sandbox.store.sendMessage('ct_ann', {
			conversation_id: 'conv_00000001',
			message: 'm',
			attachments,
		}).id;
		return runMessagingNode({
			parameters: {
				resource: 'message',
				operation: 'get',
				messageId: byId(id),
				options: { downloadAttachments: true, allowPrivateAddresses: true, ...options },
			},
			credentials,
		});
	};
	/** Files in n8n's store other than metadata: a download that failed leaves none behind. */
	const storedFiles = () =>
		fs.existsSync(storage)
			? fs
					.readdirSync(storage, { recursive: true, withFileTypes: true })
					.filter((e) => e.isFile() && !e.name.endsWith('.metadata'))
			: [];

	test('the file goes into n8n’s store as a stream; bytes, name and type as before', async () => {
		const bytes = crypto.randomBytes(200 * 1024);
		const url = sandbox.addFile(bytes, 'scan.pdf', 'application/pdf');
		const { items, error } = await get([{ name: 'scan.pdf', url }]);
		expect(error).toBeUndefined();
		const binary = items[0].binary.attachment_0;
		expect(binary).toMatchObject({
			fileName: 'scan.pdf',
			mimeType: 'application/pdf',
			fileExtension: 'pdf',
			bytes: bytes.length,
		});
		expect(binary.id).toMatch(/^filesystem/);
		const stored = service.store.mock.calls.map(([, body]) => body);
		expect(stored).toHaveLength(1);
		expect(isStream(stored[0])).toBe(true);
		expect((await service.getAsBuffer(binary)).equals(bytes)).toBe(true);
	});

	test('without a type from the message or the answer the file is read whole, as before (n8n may tell it from the bytes)', async () => {
		const url = files.route('/pixel.png', (req, res) => res.end(Buffer.from('not really')));
		const { items, error } = await get([{ url }]);
		expect(error).toBeUndefined();
		// n8n read the type from the name here; with none, it reads the bytes (file-type), which needs the buffer.
		expect(items[0].binary.attachment_0).toMatchObject({
			mimeType: 'image/png',
			fileName: 'pixel.png',
		});
		expect(Buffer.isBuffer(service.store.mock.calls[0][1])).toBe(true);
	});

	test('over the limit while arriving, or cut and retried: the same errors, nothing left in the store', async () => {
		const before = storedFiles().length;
		const big = files.route('/big', (req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/octet-stream' }); // no Content-Length
			res.end(Buffer.alloc(3000, 1));
		});
		const over = await get([{ name: 'big.bin', url: big }], { maxAttachmentSize: 0.001 });
		expect(over.error.message).toMatch(
			/\(big.bin\) could not be downloaded: it is over the limit of 1.0 KB \(option Max Attachment Size\)/,
		);
		const cut = files.cut('/cut', { length: 1000, sent: 400 });
		const failed = await get([{ name: 'cut.pdf', url: cut }]);
		expect(failed.error.message).toMatch(
			/\(cut.pdf\) could not be downloaded: the connection was cut after 400 of 1000 bytes/,
		);
		expect(files.requests.filter((r) => r.path === '/cut')).toHaveLength(3);
		expect(storedFiles()).toHaveLength(before);
	});
});
