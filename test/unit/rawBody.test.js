'use strict';
/**
 * A raw body (a file upload) in the transport: announced with its Content-Type and Content-Length, opened
 * afresh for each attempt and closed after it; a body whose source fails is the attempt's error.
 */
const path = require('node:path');
const { Readable } = require('node:stream');

const { attempt, buildHttpOptions } = require(
	path.join(__dirname, '../../dist/nodes/shared/transport/attempt.js'),
);

const credentials = { id: 'c', name: 'c', type: 'messagingApi', data: {} };
const request = (rawBody) => ({ method: 'POST', path: ['messages'], rawBody });
/** A context whose HTTP client reads the body whole, as n8n's would send it, and answers 201. */
const reading = (seen) => ({
	helpers: {
		async httpRequestWithAuthentication(type, options) {
			const chunks = [];
			if (Buffer.isBuffer(options.body)) chunks.push(options.body);
			else for await (const chunk of options.body) chunks.push(chunk);
			seen.push({ headers: options.headers, bytes: Buffer.concat(chunks).toString() });
			return { statusCode: 201, headers: {}, body: '{"id":"m"}' };
		},
	},
});

test('the headers: its type in an array (one line on the wire), its length', () => {
	const options = buildHttpOptions(
		request({ contentType: 'application/x-www-form-urlencoded', length: 12, open: () => {} }),
		'http://x.test/v1/messages',
		1000,
	);
	expect(options.headers['Content-Type']).toEqual(['application/x-www-form-urlencoded']);
	expect(options.headers['Content-Length']).toBe('12');
	expect(options.body).toBeUndefined();
});

test('each attempt opens the body afresh and closes it after', async () => {
	const opened = [];
	const rawBody = {
		contentType: 'text/plain',
		length: 5,
		open: async () => {
			const stream = Readable.from([Buffer.from('hello')]);
			opened.push(stream);
			return stream;
		},
	};
	const options = buildHttpOptions(request(rawBody), 'http://x.test/v1/messages', 1000);
	const seen = [];
	for (let i = 0; i < 2; i++) {
		const result = await attempt(reading(seen), options, credentials, undefined, rawBody);
		expect(result.response.statusCode).toBe(201);
	}
	expect(seen.map((s) => s.bytes)).toEqual(['hello', 'hello']);
	expect(opened).toHaveLength(2);
	expect(opened[0]).not.toBe(opened[1]);
	expect(opened.every((s) => s.destroyed)).toBe(true);
});

test('a body whose source fails: that error, not a network failure', async () => {
	const problem = new Error('"data" is not the size n8n recorded for it');
	const rawBody = {
		contentType: 'text/plain',
		length: 5,
		open: async () =>
			Readable.from(
				(async function* () {
					yield Buffer.from('he');
					throw problem;
				})(),
			),
	};
	const options = buildHttpOptions(request(rawBody), 'http://x.test/v1/messages', 1000);
	const failing = {
		helpers: {
			async httpRequestWithAuthentication(type, { body }) {
				// As n8n's client: the upload's error ends the request with a network-looking error.
				await new Promise((resolve) => body.on('error', resolve).resume());
				throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
			},
		},
	};
	await expect(attempt(failing, options, credentials, undefined, rawBody)).rejects.toBe(problem);
});
