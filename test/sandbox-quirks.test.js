'use strict';
/**
 * The sandbox's hostile behaviours, each off by default, as a client sees them on the wire: scripted faults,
 * redirects, errors that echo the Authorization header, stalls. Its odd answers are in sandbox-answers.test.js.
 */
const { request } = require('undici');
const { TOKEN } = require('./harness/sandbox');
const { startWithHistory, callOn, until } = require('./harness/quirks');
const { parseArgs } = require('../sandbox/cli');

let sandbox;
afterEach(() => sandbox?.stop());
const call = callOn(() => sandbox);
async function start(options = {}) {
	sandbox = await startWithHistory(options);
}

describe('defaults stay the spec', () => {
	test('no quirk, no limiter headers, no second-origin traffic', async () => {
		await start();
		const list = await call('GET', '/v1/messages?limit=2');
		expect(list.body).toEqual({
			has_more: true,
			data: [
				expect.objectContaining({ id: 'msg_00000003', created_at: 1002 }),
				expect.objectContaining({ id: 'msg_00000002' }),
			],
		});
		expect(Object.keys(list.headers).filter((h) => /ratelimit|retry-after/.test(h))).toEqual([]);
		expect((await call('GET', '/v1/messages/nope')).body.error.message).toBe(
			'No such message: nope',
		);
		expect(sandbox.other.requests).toEqual([]);
	});
});

describe('scripted faults matched by method and path', () => {
	test('a fault waits for the first request it matches; times counts; always stays', async () => {
		await start();
		sandbox.failNext(
			{ match: { method: 'POST', path: '/v1/messages' }, status: 500, times: 2 },
			{ match: { path: '/v1/messages/*', method: ['PUT', 'PATCH'] }, status: 503, times: 'always' },
		);
		expect((await call('GET', '/v1/messages')).status).toBe(200);
		expect(
			(await call('POST', '/v1/messages', { body: 'conversation_id=conv_00000001&message=x' }))
				.status,
		).toBe(500);
		expect(
			(await call('POST', '/v1/messages', { body: 'conversation_id=conv_00000001&message=x' }))
				.status,
		).toBe(500);
		expect(
			(await call('POST', '/v1/messages', { body: 'conversation_id=conv_00000001&message=x' }))
				.status,
		).toBe(200);
		for (let i = 0; i < 3; i++)
			expect((await call('PATCH', '/v1/messages/msg_00000001', { body: 'message=y' })).status).toBe(
				503,
			);
		sandbox.clearFaults();
		expect((await call('PATCH', '/v1/messages/msg_00000001', { body: 'message=y' })).status).toBe(
			200,
		);
		sandbox.failNext({ match: { url: /starting_after=msg_00000002/ }, status: 500 });
		expect((await call('GET', '/v1/messages?limit=1')).status).toBe(200);
		expect((await call('GET', '/v1/messages?limit=1&starting_after=msg_00000002')).status).toBe(
			500,
		);
	});

	test('from the start (script) and from the command line', async () => {
		await start({ script: [{ match: { method: 'GET' }, status: 502, times: 'always' }] });
		expect((await call('GET', '/v1/conversations')).status).toBe(502);
		expect(
			parseArgs(['--fault', '{"redirect":307,"to":"other"}', '--fault', '{"stall":"body"}']).script,
		).toEqual([{ redirect: 307, to: 'other' }, { stall: 'body' }]);
		expect(() => sandbox.failNext({ stall: 'forever' })).toThrow(/fault.stall is one of/);
		expect(() => sandbox.failNext({ match: { method: 'GET' }, message: 'x' })).toThrow(
			/a fault needs one of/,
		);
		sandbox.clearFaults();
		sandbox.failNext({}, { match: { method: 'GET' } }, { status: 500 }); // placeholders let their requests through
		expect(
			(await call('POST', '/v1/messages', { body: 'conversation_id=conv_00000001&message=x' }))
				.status,
		).toBe(200);
		expect((await call('GET', '/v1/conversations')).status).toBe(200);
		expect((await call('GET', '/v1/conversations')).status).toBe(500);
	});
});

describe('redirects', () => {
	test.each([301, 302, 303, 307, 308])(
		'%i to the second origin, on every method; the request is not processed',
		async (code) => {
			await start();
			for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
				sandbox.failNext({ match: { method }, redirect: code, to: 'other' });
				const path = method === 'POST' ? '/v1/messages' : '/v1/messages/msg_00000001';
				const answer = await call(method, path, {
					body:
						method === 'GET' || method === 'DELETE'
							? undefined
							: 'conversation_id=conv_00000001&message=moved',
				});
				expect([answer.status, answer.headers.location, answer.text]).toEqual([
					code,
					`${sandbox.other.url}${path}`,
					'',
				]);
			}
			expect(sandbox.store.messages.size).toBe(3);
			expect(sandbox.store.message('msg_00000001').message).toBe('m0');
			expect(sandbox.other.requests).toEqual([]); // the sandbox never talks to it itself
		},
	);

	test('same origin (absolute or relative), an explicit location, keeping the query', async () => {
		await start();
		sandbox.failNext(
			{ redirect: 301, location: '/v1/messages/msg_00000002' },
			{ redirect: 302, to: 'relative' },
			{ redirect: 308, location: 'https://example.invalid/x' },
		);
		expect((await call('GET', '/v1/messages/msg_00000001')).headers.location).toBe(
			`${sandbox.url}/v1/messages/msg_00000002`,
		);
		expect((await call('GET', '/v1/messages?limit=2')).headers.location).toBe(
			'/v1/messages?limit=2',
		);
		expect((await call('GET', '/v1/messages')).headers.location).toBe('https://example.invalid/x');
	});

	test('the second origin records every request in full and answers what it is told', async () => {
		await start();
		const reached = await call('PUT', '/v1/messages/msg_00000001?x=1', {
			base: sandbox.other.url,
			body: 'message=secret',
			headers: { 'x-extra': 'yes' },
		});
		expect(reached).toMatchObject({ status: 200, body: { has_more: false, data: [] } });
		expect(sandbox.other.requests).toEqual([
			expect.objectContaining({
				method: 'PUT',
				path: '/v1/messages/msg_00000001',
				query: '?x=1',
				body: 'message=secret',
				headers: expect.objectContaining({ authorization: `Bearer ${TOKEN}`, 'x-extra': 'yes' }),
			}),
		]);
		sandbox.other.answer = { status: 401, body: 'who are you', headers: {} };
		expect(await call('GET', '/', { base: sandbox.other.url })).toMatchObject({
			status: 401,
			text: 'who are you',
		});
		sandbox.other.clearRequests();
		expect(sandbox.other.requests).toEqual([]);
		expect(sandbox.other.url).not.toBe(sandbox.url);
	});
});

describe('errors that echo the Authorization header', () => {
	test('the quirk puts it in every error text; a scripted fault in its own', async () => {
		await start({ quirks: { echoAuthorization: true } });
		expect((await call('GET', '/v1/messages/nope')).body.error.message).toBe(
			`No such message: nope [debug] Authorization: Bearer ${TOKEN}`,
		);
		expect(
			(await call('GET', '/v1/messages', { headers: { authorization: 'Bearer wrong' } })).body.error
				.message,
		).toBe('Invalid access token [debug] Authorization: Bearer wrong');
		expect((await call('GET', '/v1/messages')).status).toBe(200);
		sandbox.set({ quirks: {} });
		sandbox.failNext({ status: 500, echoAuthorization: true, message: 'Boom' });
		expect(await call('GET', '/v1/messages')).toMatchObject({
			status: 500,
			body: {
				error: { type: 'server_error', message: `Boom [debug] Authorization: Bearer ${TOKEN}` },
			},
		});
		expect((await call('GET', '/v1/messages/nope')).body.error.message).toBe(
			'No such message: nope',
		);
	});
});

describe('stalls, cleaned up by stop()', () => {
	test('accepted and never answered (not processed)', async () => {
		await start();
		sandbox.failNext({ match: { method: 'POST' }, stall: 'before' });
		const pending = call('POST', '/v1/messages', {
			body: 'conversation_id=conv_00000001&message=lost',
		}).then(
			() => 'answered',
			(error) => error.code,
		);
		await until(() => sandbox.requests.some((r) => r.status === 'stalled'));
		expect(sandbox.store.messages.size).toBe(3);
		await sandbox.stop();
		expect(await pending).toBe('UND_ERR_SOCKET');
	});

	test('headers sent, then nothing (processed)', async () => {
		await start();
		sandbox.failNext({ match: { method: 'DELETE' }, stall: 'headers' });
		const response = await request(`${sandbox.url}/v1/messages/msg_00000001`, {
			method: 'DELETE',
			headers: { authorization: `Bearer ${TOKEN}` },
		});
		expect(response.statusCode).toBe(200);
		expect(Number(response.headers['content-length'])).toBe(
			Buffer.byteLength(JSON.stringify({ id: 'msg_00000001', deleted: true })),
		);
		expect(sandbox.store.messages.has('msg_00000001')).toBe(false);
		const rest = response.body.text().then(
			() => 'complete',
			(error) => error.code,
		);
		await sandbox.stop();
		expect(await rest).toBe('UND_ERR_SOCKET');
	});

	test('part of the body, then nothing (processed)', async () => {
		await start();
		sandbox.failNext({ stall: 'body' });
		const response = await request(`${sandbox.url}/v1/messages/msg_00000001`, {
			headers: { authorization: `Bearer ${TOKEN}` },
		});
		const whole = JSON.stringify(
			sandbox.store.renderMessage(sandbox.store.message('msg_00000001')),
		);
		expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(whole));
		const received = [];
		const reading = (async () => {
			for await (const chunk of response.body) received.push(chunk);
		})().then(
			() => 'complete',
			(error) => error.code,
		);
		await until(() => received.length > 0);
		expect(Buffer.concat(received).toString()).toBe(whole.slice(0, Math.floor(whole.length / 2)));
		expect(sandbox.requests[0].status).toBe('stalled mid-body');
		await sandbox.stop();
		expect(await reading).toBe('UND_ERR_SOCKET');
	});

	test('a request waiting out its latency when the sandbox stops leaves no timer behind', async () => {
		await start({ latencyMs: 60_000 });
		const set = jest.spyOn(global, 'setTimeout');
		const clear = jest.spyOn(global, 'clearTimeout');
		try {
			const pending = call('GET', '/v1/messages').catch((error) => error.code);
			await until(
				() => sandbox.stats.inFlight === 1 && set.mock.calls.some(([, ms]) => ms === 60_000),
			);
			const latencyTimers = set.mock.results
				.filter((_, i) => set.mock.calls[i][1] === 60_000)
				.map((r) => r.value);
			await sandbox.stop();
			expect(await pending).toBe('UND_ERR_SOCKET');
			expect(clear.mock.calls.map(([timer]) => timer)).toEqual(
				expect.arrayContaining(latencyTimers),
			);
		} finally {
			set.mockRestore();
			clear.mockRestore();
		}
	});
});
