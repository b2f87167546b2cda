'use strict';
/**
 * Download Attachments on Get against files that misbehave (a loopback file server): the Timeout covers
 * the whole file (a drip, slow redirects and retries), a compressed body with its compressed length is
 * read and decoded, a decompression bomb is refused at the limit without decoding it all, and every
 * error names the message and the attachment and says what happened.
 */
const zlib = require('node:zlib');
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');
const { startFileServer } = require('../harness/fileServer');

let sandbox;
let credentials;
let files;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	files = await startFileServer();
});
afterEach(async () => {
	await files.stop();
	await sandbox.stop();
});

const message = (attachments) =>
	sandbox.store.sendMessage('ct_ann', {
		conversation_id: 'conv_00000001',
		message: 'm',
		attachments,
	}).id;
const get = async (messageId, options = {}, extra = {}) => {
	const started = Date.now();
	const result = await runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'get',
			messageId: byId(messageId),
			options: { downloadAttachments: true, allowPrivateAddresses: true, ...options },
		},
		credentials,
		...extra,
	});
	return { ...result, ms: Date.now() - started };
};
const bytesOf = (item, field) => Buffer.from(item.binary[field].data, 'base64');

describe('the Timeout covers the whole file', () => {
	test('a file that drips a byte every 100 ms fails at the Timeout, its connection closed', async () => {
		// 60 bytes at 10 a second: 6 s in all, never 1 s without a byte.
		const url = files.drip('/slow.bin', { length: 60, everyMs: 100 });
		const id = message([{ name: 'slow.bin', url }]);
		const { error, ms } = await get(id, { timeout: 1 });
		expect(error.message).toMatch(
			/^Attachment 0 of message msg_00000001 \(slow\.bin\) could not be downloaded: it took longer than the Timeout of 1 s \(\d+ of 60 bytes had arrived\) \[item 0\]$/,
		);
		expect(ms).toBeLessThan(4_000);
		expect(files.requests).toHaveLength(1);
		await until(() => files.requests[0].closedAt !== undefined);
		expect(files.requests[0].closedAt - files.requests[0].at).toBeLessThan(3_000);
	});

	test('a file on the Base URL’s origin (sent with the token) that never answers ends at the Timeout', async () => {
		const url = sandbox.addFile('own file', 'own.txt', 'text/plain');
		const id = message([{ name: 'own.txt', url }]);
		sandbox.failNext({ match: { path: '/files/*' }, stall: 'before' });
		const { error, ms } = await get(id, { timeout: 1 });
		expect(error.message).toBe(
			'Attachment 0 of message msg_00000001 (own.txt) could not be downloaded: it took longer than the Timeout of 1 s (no answer) [item 0]',
		);
		expect(ms).toBeLessThan(4_000);
		expect(sandbox.requests.filter((r) => r.path.startsWith('/files/'))).toHaveLength(1);
	});

	test('redirects and retries count: a slow hop and a slow 503 end at the Timeout', async () => {
		// Each answer alone is within 2 s; the hop and its file, or the 503 and its retry, are not.
		const file = files.slow('/file.txt', { delayMs: 1200, body: 'late' });
		const hop = files.slow('/hop', { delayMs: 1200, status: 302, to: file });
		const busy = files.slow('/busy', { delayMs: 1000, status: 503 });
		const viaHop = message([{ name: 'file.txt', url: hop }]);
		const retried = message([{ name: 'busy.txt', url: busy }]);
		const hopped = await get(viaHop, { timeout: 2 });
		expect(hopped.error.message).toMatch(
			/\(file\.txt\) could not be downloaded: it took longer than the Timeout of 2 s \(no answer\) \[item 0\]$/,
		);
		const busyRun = await get(retried, { timeout: 2 });
		expect(busyRun.error.message).toMatch(
			/\(busy\.txt\) could not be downloaded: it took longer than the Timeout of 2 s \(no answer\) \[item 0\]$/,
		);
		expect(hopped.ms).toBeLessThan(5_000);
		expect(busyRun.ms).toBeLessThan(5_000);
		expect(files.requests.filter((r) => r.path === '/busy')).toHaveLength(2);
	});
});

describe('Content-Encoding', () => {
	const text = Buffer.from('The quarterly report, line after line. '.repeat(2_000));

	test.each(['gzip', 'deflate', 'br'])(
		'%s with the compressed Content-Length: the decoded file, in one GET',
		async (encoding) => {
			const url = files.encoded(`/report.${encoding}`, text, encoding);
			const id = message([{ name: 'report.txt', url }]);
			const { items, error } = await get(id);
			expect(error).toBeUndefined();
			expect(bytesOf(items[0], 'attachment_0').equals(text)).toBe(true);
			expect(files.requests).toHaveLength(1);
		},
	);

	test('the limit applies to the decoded bytes: a gzip bomb is refused at the limit, not decoded in full', async () => {
		const zeros = Buffer.alloc(10 * 1024 * 1024);
		const url = files.encoded('/bomb.gz', zeros, 'gzip');
		const id = message([{ name: 'bomb.txt', url }]);
		const decoded = countDecodedBytes();
		try {
			const { error } = await get(id, { maxAttachmentSize: 1 });
			expect(error.message).toMatch(
				/^Attachment 0 of message msg_00000001 \(bomb\.txt\) could not be downloaded: it is over the limit of 1\.0 MB \(option Max Attachment Size\) \[item 0\]$/,
			);
		} finally {
			decoded.restore();
		}
		expect(decoded.bytes()).toBeLessThan(3 * 1024 * 1024);
		expect(files.requests).toHaveLength(1);
	});

	test('a small gzip file within the limit passes although its decoded size exceeds the Content-Length', async () => {
		const zeros = Buffer.alloc(512 * 1024);
		const id = message([{ name: 'z.bin', url: files.encoded('/z.gz', zeros, 'gzip') }]);
		const { items, error } = await get(id, { maxAttachmentSize: 1 });
		expect(error).toBeUndefined();
		expect(bytesOf(items[0], 'attachment_0').length).toBe(zeros.length);
	});
});

describe('errors name the message and the attachment and say what happened', () => {
	test('a body cut mid-way: after how many of how many bytes, retried, never n8n’s generic text', async () => {
		const url = files.cut('/cut.pdf', { length: 1000, sent: 400 });
		const id = message([
			{ name: 'ok.txt', data: 'b2s=' },
			{ name: 'cut.pdf', url },
		]);
		const { error } = await get(id);
		expect(error.message).toBe(
			'Attachment 1 of message msg_00000001 (cut.pdf) could not be downloaded: the connection was cut after 400 of 1000 bytes [item 0]',
		);
		expect(files.requests).toHaveLength(3);
		const kept = await get(id, {}, { continueOnFail: true });
		expect(kept.items[0].json.error).toMatch(
			/\(cut\.pdf\) could not be downloaded: the connection/,
		);
	});

	test('a refused connection says so in words', async () => {
		const closed = `http://127.0.0.1:${await freePort()}/gone.txt`;
		const id = message([{ name: 'gone.txt', url: closed }]);
		const { error } = await get(id);
		expect(error.message).toMatch(
			/^Attachment 0 of message msg_00000001 \(gone\.txt\) could not be downloaded: http:\/\/127\.0\.0\.1:\d+\/gone\.txt refused the connection \[item 0\]$/,
		);
	});

	test('a file name holding an error code (EPERM in keepermits.txt) keeps the error’s own text', async () => {
		const id = message([{ name: 'keepermits.txt', url: `${files.url}/none` }]);
		const { error } = await get(id);
		expect(error.message).toMatch(
			/^Attachment 0 of message msg_00000001 \(keepermits\.txt\) could not be downloaded: http:\/\/127\.0\.0\.1:\d+\/none answered 404 \[item 0\]$/,
		);
	});
});

/** Counts the bytes every zlib decoder created from now on puts out (axios decodes through zlib). */
function countDecodedBytes() {
	const originals = { createUnzip: zlib.createUnzip, createGunzip: zlib.createGunzip };
	let total = 0;
	for (const name of Object.keys(originals)) {
		Object.defineProperty(zlib, name, {
			configurable: true,
			value: (...args) => {
				const decoder = originals[name](...args);
				decoder.on('data', (chunk) => (total += chunk.length));
				return decoder;
			},
		});
	}
	return {
		bytes: () => total,
		restore: () => {
			for (const [name, value] of Object.entries(originals))
				Object.defineProperty(zlib, name, { configurable: true, value });
		},
	};
}

async function until(condition) {
	for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
}

async function freePort() {
	const net = require('node:net');
	const server = net.createServer();
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
	await new Promise((resolve) => server.close(resolve));
	return port;
}
