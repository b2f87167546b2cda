'use strict';
/**
 * A hostile or broken service over loopback: redirects to another origin, answers that never come or
 * stall mid-body. The token never leaves its origin, a write is never turned into a read, and no
 * request waits forever.
 */
const http = require('node:http');
const path = require('node:path');
const { runMessagingNode } = require('../harness/n8n');
const { byId, TOKEN, BASE_URL_PASSWORD } = require('../harness/sandbox');

const { transportDefaults } = require(
	path.join(__dirname, '../../dist/nodes/shared/transport/index.js'),
);

/** A loopback server that records what it receives and answers with `handler`. */
async function server(handler) {
	const received = [];
	const sockets = new Set();
	const srv = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk) => (body += chunk));
		req.on('end', () => {
			received.push({ method: req.method, url: req.url, headers: req.headers, body });
			handler(req, res, received.length);
		});
	});
	srv.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(undefined)));
	return {
		url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (srv.address()).port}`,
		received,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => srv.close(resolve));
		},
	};
}

const MESSAGE = {
	id: 'msg_1',
	conversation_id: 'conv_1',
	message: 'hi',
	reactions: [],
	attachments: [],
	created_at: 1_700_000_000,
};

let servers = [];
const start = async (handler) => {
	const s = await server(handler);
	servers.push(s);
	return s;
};
const savedRetry = transportDefaults.retry;
afterEach(async () => {
	transportDefaults.retry = savedRetry;
	await Promise.all(servers.map((s) => s.close()));
	servers = [];
});

const credentialsFor = (url) => ({
	baseUrl: `${url}/v1`,
	accessToken: TOKEN,
	timestampUnit: 'auto',
	ownContactId: '',
});
const run = (url, parameters, extra = {}) =>
	runMessagingNode({ parameters, credentials: credentialsFor(url), ...extra });

const OPERATIONS = {
	GET: { resource: 'message', operation: 'get', messageId: byId('msg_1') },
	POST: { resource: 'message', operation: 'send', conversationId: byId('conv_1'), text: 'hello' },
	PUT: {
		resource: 'message',
		operation: 'update',
		messageId: byId('msg_1'),
		updateFields: { text: 'edited' },
	},
	DELETE: { resource: 'message', operation: 'delete', messageId: byId('msg_1') },
};

describe('redirects are never followed: the token never leaves its origin, a write never becomes a read', () => {
	const cases = [];
	for (const status of [301, 302, 303, 307, 308])
		for (const method of Object.keys(OPERATIONS)) cases.push([status, method]);
	test.each(cases)('%i on %s', async (status, method) => {
		const elsewhere = await start((req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify(
					req.method === 'GET' && req.url.endsWith('/messages')
						? { has_more: false, data: [MESSAGE] }
						: MESSAGE,
				),
			);
		});
		const origin = await start((req, res) => {
			res.writeHead(status, { location: `${elsewhere.url}/v1/messages?token=${TOKEN}` });
			res.end();
		});
		const { error, items } = await run(origin.url, OPERATIONS[method]);
		expect(items).toEqual([]);
		expect(error.message).toBe(
			`The Messaging service redirected the request (${status}) to ${elsewhere.url}/v1/messages`,
		);
		expect(error.description).toContain('Redirects are not followed');
		expect(elsewhere.received).toEqual([]);
		expect(origin.received.length).toBeGreaterThanOrEqual(1);
		expect(
			JSON.stringify({ message: error.message, description: error.description }),
		).not.toContain(TOKEN);
	});
});

describe('no request waits forever', () => {
	test('a service that accepts and never answers: a Get times out, is retried, then fails plainly', async () => {
		transportDefaults.retry = { ...savedRetry, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 };
		const silent = await start(() => {});
		const { error } = await run(silent.url, { ...OPERATIONS.GET, options: { timeout: 1 } });
		expect(error.message).toBe(
			'The Messaging service did not answer within 1 s (gave up after 2 attempts)',
		);
		expect(silent.received).toHaveLength(2);
	});

	test('a body that stalls halfway counts as a timeout too', async () => {
		transportDefaults.retry = { ...savedRetry, maxAttempts: 1 };
		const stalling = await start((req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"id": "msg_1", "mess');
		});
		const { error } = await run(stalling.url, { ...OPERATIONS.GET, options: { timeout: 1 } });
		expect(error.message).toBe('The Messaging service did not answer within 1 s');
	});

	test('a Send that times out is reported once as maybe processed, never repeated', async () => {
		const silent = await start(() => {});
		const { error } = await run(silent.url, { ...OPERATIONS.POST, options: { timeout: 1 } });
		expect(error.message).toBe('The Messaging service did not answer within 1 s');
		expect(error.description).toContain('may or may not have processed it, so it was not repeated');
		expect(silent.received).toHaveLength(1);
	});
});

describe('a Base URL with user info', () => {
	test('is refused before anything is sent, and its password is never shown', async () => {
		const target = await start((req, res) => res.end('{}'));
		const url = target.url.replace('http://', `http://bob:${BASE_URL_PASSWORD}@`);
		const { error, items } = await run(url, OPERATIONS.GET, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items[0].json.error).toBe(
			'The Base URL of the Messaging API credential must not contain a user name or password (put the access token in its own field)',
		);
		expect(JSON.stringify(items)).not.toContain(BASE_URL_PASSWORD);
		expect(target.received).toEqual([]);
	});
});
