'use strict';
/**
 * Files in pieces: base64 and its form encoding built piece by piece join to what the whole-file encoding
 * gives; a body is one buffer, or a stream when a Readable class is at hand, of exactly the announced
 * length; a download's body stream ends at the size limit and when the connection is cut.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { PassThrough, Readable } = require('node:stream');

const dist = path.join(__dirname, '../../dist/nodes/shared');
const { base64OfBytes, decodablePieces, formLength, pieces } = require(
	path.join(dist, 'attachments/base64.js'),
);
const { openBody, readableClassOf } = require(path.join(dist, 'attachments/streams.js'));
const { countedBody } = require(path.join(dist, 'attachments/downloadBody.js'));
const { encodeForm, encodeFormComponent, formPieces, StreamedFormValue } = require(
	path.join(dist, 'transport/form.js'),
);

const collect = async (iterable) => {
	const out = [];
	for await (const piece of iterable) out.push(piece);
	return out;
};
/** `bytes` cut at random places, as a file stream's chunks would be. */
async function* chunked(bytes, seed) {
	let at = 0;
	let n = seed;
	while (at < bytes.length) {
		n = (n * 1103515245 + 12345) % 2 ** 31;
		const size = 1 + (n % 7000);
		yield bytes.subarray(at, at + size);
		at += size;
	}
}

test('base64 of a byte stream in pieces: joined, the base64 of the whole, whatever the chunk sizes', async () => {
	for (const size of [0, 1, 2, 3, 4, 5, 6999, 70_001]) {
		const bytes = crypto.randomBytes(size);
		for (const seed of [1, 2, 3]) {
			const joined = (await collect(base64OfBytes(chunked(bytes, seed)))).join('');
			expect(joined).toBe(bytes.toString('base64'));
		}
	}
});

test('an item’s base64 text: pieces without whitespace; decoded piece by piece, the bytes of the whole', () => {
	const bytes = crypto.randomBytes(200_000);
	const text = bytes.toString('base64').replace(/(.{76})/g, '$1\r\n');
	expect([...pieces(text)].join('')).toBe(bytes.toString('base64'));
	expect([...pieces(text)].length).toBeGreaterThan(1);
	const decodable = [...decodablePieces(text)];
	expect(decodable.every((piece, i) => i === decodable.length - 1 || piece.length % 4 === 0)).toBe(
		true,
	);
	expect(Buffer.concat(decodable.map((p) => Buffer.from(p, 'base64'))).equals(bytes)).toBe(true);
});

test('the length of a base64 piece as the form sends it, without building it', () => {
	for (const piece of ['', 'aGVsbG8=', '++++//8=', 'ab-_', 'a b']) {
		expect(encodeFormComponent(piece)).toBe(encodeForm({ x: piece }).slice(2));
		expect(formLength(piece)).toBe(Buffer.byteLength(encodeFormComponent(piece)));
	}
});

test('a form with a streamed value: its pieces, the value written in, are encodeForm’s bytes', async () => {
	const value = new StreamedFormValue(8, async function* () {
		yield Buffer.from('aGk%3D');
		yield Buffer.from('xy');
	});
	const fields = {
		conversation_id: 'c 1',
		attachments: [{ name: 'a&b', data: value }, { url: 'u' }],
	};
	const parts = formPieces(fields);
	expect(parts.filter((p) => typeof p !== 'string')).toEqual([value]);
	const bytes = [];
	for (const part of parts) {
		if (typeof part === 'string') bytes.push(Buffer.from(part));
		else bytes.push(...(await collect(part.chunks())));
	}
	expect(Buffer.concat(bytes).toString()).toBe(
		encodeForm({ ...fields, attachments: [{ name: 'a&b', data: 'X' }, { url: 'u' }] }).replace(
			'data]=X',
			'data]=aGk%3Dxy',
		),
	);
	expect(formPieces({ a: 1, b: 'c' })).toEqual(['a=1&b=c']);
});

describe('openBody', () => {
	const file = () =>
		(async function* () {
			yield Buffer.from('d');
			yield { text: Buffer.from('e').toString('base64'), encoding: 'base64' };
			yield { text: 'f', encoding: 'latin1' };
		})();
	const body = ['abc', file, 'g'];

	test('without a Readable class: one buffer of the announced length', async () => {
		const bytes = await openBody(body, 7);
		expect(Buffer.isBuffer(bytes)).toBe(true);
		expect(bytes.toString()).toBe('abcdefg');
	});

	test('with one: a stream, read only when consumed, and again from the start on each opening', async () => {
		let reads = 0;
		const counted = () => {
			reads += 1;
			return file();
		};
		const first = await openBody(['abc', counted, 'g'], 7, Readable);
		expect(first).toBeInstanceOf(Readable);
		expect(reads).toBe(0);
		expect(Buffer.concat(await collect(first)).toString()).toBe('abcdefg');
		const second = await openBody(['abc', counted, 'g'], 7, Readable);
		expect(Buffer.concat(await collect(second)).toString()).toBe('abcdefg');
		expect(reads).toBe(2);
	});

	test('a body that comes to another length than announced is an error, in both forms', async () => {
		await expect(openBody(body, 8)).rejects.toThrow(
			'The upload came to 7 bytes, not the 8 announced',
		);
		await expect(collect(await openBody(body, 5, Readable))).rejects.toThrow(
			'The upload is longer than the 5 bytes announced',
		);
	});
});

test('the Readable class is found in a stream n8n hands over (a file’s, a passthrough)', () => {
	const stream = fs.createReadStream(__filename);
	expect(readableClassOf(stream)).toBe(Readable);
	stream.destroy();
	expect(readableClassOf(new PassThrough())).toBe(Readable);
});

describe('countedBody: a download’s body for n8n’s store', () => {
	const ended = (progress) => new Error(`ended (${progress})`);
	/** @param {any} source @param {{ limit?: number, declared?: number, signal?: AbortSignal }} [options] */
	const start = (
		source,
		{ limit = Infinity, declared, signal = new AbortController().signal } = {},
	) => countedBody(source, limit, declared, signal, ended, Readable);

	test('the bytes as they came', async () => {
		const source = new PassThrough();
		const { body, failure } = start(source);
		source.end(Buffer.from('hello'));
		expect(Buffer.concat(await collect(body)).toString()).toBe('hello');
		expect(failure()).toBeUndefined();
	});

	test('past the limit: the source destroyed, the stream failed, the reason kept', async () => {
		const source = new PassThrough();
		const { body, failure } = start(source, { limit: 4 });
		source.write(Buffer.from('hel'));
		source.write(Buffer.from('lo'));
		await expect(collect(body)).rejects.toThrow(/over the limit of 4 B/);
		expect(source.destroyed).toBe(true);
		expect(failure().retryable).toBe(false);
	});

	test('a cut connection: the bytes that had arrived named, retryable', async () => {
		const source = new PassThrough();
		const { body, failure } = start(source, { declared: 10 });
		source.write(Buffer.from('abcd'));
		await new Promise((resolve) => setImmediate(resolve));
		source.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
		await expect(collect(body)).rejects.toThrow('the connection was cut after 4 of 10 bytes');
		expect(failure().retryable).toBe(true);
	});

	test('the deadline: the source destroyed, the reason given by the caller', async () => {
		const source = new PassThrough();
		const timer = new AbortController();
		const { body, failure } = start(source, { declared: 10, signal: timer.signal });
		source.write(Buffer.from('ab'));
		await new Promise((resolve) => setImmediate(resolve));
		timer.abort();
		await expect(collect(body)).rejects.toThrow('ended (2 of 10 bytes had arrived)');
		expect(source.destroyed).toBe(true);
		expect(failure().message).toBe('ended (2 of 10 bytes had arrived)');
	});
});
