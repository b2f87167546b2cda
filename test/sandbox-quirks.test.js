'use strict';
/** The sandbox's hostile and odd behaviours, each off by default, as a client sees them on the wire. */
const { request } = require('undici');
const { startSandbox, TOKEN } = require('./harness/sandbox');
const { createSandbox } = require('../sandbox/server');
const { parseArgs } = require('../sandbox/cli');

let sandbox;
afterEach(() => sandbox?.stop());

async function call(method, path, { body, headers = {}, base = sandbox.url, signal } = {}) {
	const all = { authorization: `Bearer ${TOKEN}`, ...headers };
	if (body !== undefined) all['content-type'] = 'application/x-www-form-urlencoded';
	const response = await request(`${base}${path}`, { method, headers: all, body, signal });
	const text = await response.body.text();
	let json;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	return { status: response.statusCode, headers: response.headers, text, body: json };
}

async function start(options = {}) {
	({ sandbox } = await startSandbox({ seed: 'none', ...options }));
	sandbox.store.addContact({ id: 'ct_ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	for (let i = 0; i < 3; i++)
		sandbox.store.sendMessage(
			'ct_ann',
			{ conversation_id: 'conv_00000001', message: `m${i}` },
			{ createdAt: 1000 + i },
		);
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

describe('malformed and misleading answers', () => {
	test.each([
		['no-data', { has_more: false }],
		['null-data', { has_more: false, data: null }],
		[
			'bare-array',
			[
				expect.objectContaining({ id: 'msg_00000003' }),
				expect.objectContaining({ id: 'msg_00000002' }),
				expect.objectContaining({ id: 'msg_00000001' }),
			],
		],
	])('list shape %s', async (listShape, expected) => {
		await start({ quirks: { listShape } });
		expect((await call('GET', '/v1/messages')).body).toEqual(expected);
		expect((await call('GET', '/v1/conversations')).body).toEqual(
			listShape === 'bare-array' ? [expect.objectContaining({ id: 'conv_00000001' })] : expected,
		);
		sandbox.set({ quirks: { listShape: 'normal' } });
		expect((await call('GET', '/v1/messages')).body.data).toHaveLength(3);
	});

	test("has_more forever, 'same': the cursor is ignored and the first page comes back", async () => {
		await start({ quirks: { endlessPages: 'same' } });
		const first = (await call('GET', '/v1/messages?limit=2')).body;
		const next = (await call('GET', `/v1/messages?limit=2&starting_after=${first.data[1].id}`))
			.body;
		expect(first.has_more).toBe(true);
		expect(next).toEqual(first);
		expect((await call('GET', '/v1/messages?limit=100')).body.has_more).toBe(true);
	});

	test("has_more forever, 'new': real records, then invented ones page after page", async () => {
		await start({ quirks: { endlessPages: 'new' } });
		const seen = new Set();
		let cursor = '';
		for (let page = 0; page < 5; page++) {
			const body = (
				await call('GET', `/v1/messages?conversation_id=conv_00000001&limit=2${cursor}`)
			).body;
			expect(body.has_more).toBe(true);
			expect(body.data).toHaveLength(2);
			for (const m of body.data) {
				expect(seen.has(m.id)).toBe(false);
				expect(m).toMatchObject({
					conversation_id: 'conv_00000001',
					contact: { id: expect.any(String) },
					reactions: [],
					attachments: [],
				});
				seen.add(m.id);
			}
			cursor = `&starting_after=${body.data[1].id}`;
		}
		expect([...seen].slice(0, 4)).toEqual([
			'msg_00000003',
			'msg_00000002',
			'msg_00000001',
			'msg_endless_00000001',
		]);
		expect(sandbox.store.messages.size).toBe(3);
		const conversations = (await call('GET', '/v1/conversations?limit=3')).body;
		expect(conversations.data.map((c) => c.id)).toEqual([
			'conv_00000001',
			expect.stringMatching(/^conv_endless_/),
			expect.stringMatching(/^conv_endless_/),
		]);
	});

	test('a DELETE done, answered 200 in plain text', async () => {
		await start();
		sandbox.failNext({
			match: { method: 'DELETE', path: '/v1/messages/*' },
			process: true,
			status: 200,
			body: 'OK, deleted',
			times: 'always',
		});
		const answer = await call('DELETE', '/v1/messages/msg_00000001');
		expect([answer.status, answer.headers['content-type'], answer.text]).toEqual([
			200,
			'text/plain; charset=utf-8',
			'OK, deleted',
		]);
		expect(sandbox.store.messages.has('msg_00000001')).toBe(false);
		expect((await call('DELETE', '/v1/messages/msg_00000001')).status).toBe(404); // an error from the service itself still shows
	});

	test.each([[{}], [[]], ['null']])(
		'a Get answered with something that is not a message: %j',
		async (body) => {
			await start();
			sandbox.failNext({
				match: { method: 'GET', path: /^\/v1\/messages\/[^/]+$/ },
				status: 200,
				...(body === 'null' ? { body: 'null', contentType: 'application/json' } : { body }),
			});
			const answer = await call('GET', '/v1/messages/msg_00000001');
			expect([answer.status, answer.headers['content-type'], answer.text]).toEqual([
				200,
				'application/json',
				JSON.stringify(body === 'null' ? null : body),
			]);
		},
	);

	test('a processed request whose answer is rewritten (a Send answered with a list, say)', async () => {
		await start();
		sandbox.failNext({
			match: { method: 'POST' },
			process: true,
			body: (message) => ({ has_more: false, data: [message] }),
		});
		const answer = await call('POST', '/v1/messages', {
			body: 'conversation_id=conv_00000001&message=hello',
		});
		expect(answer.body).toEqual({
			has_more: false,
			data: [expect.objectContaining({ id: 'msg_00000004', message: 'hello' })],
		});
		expect(sandbox.store.message('msg_00000004').message).toBe('hello');
	});
});

describe('numeric ids', () => {
	test('ids of digits go out as numbers and come back as the stored ids; other ids stay text', async () => {
		await start({ quirks: { numericIds: true } });
		const list = await call('GET', '/v1/messages?conversation_id=1&limit=1&starting_after=3');
		expect(list.body.data.map((m) => [m.id, m.conversation_id, m.contact.id])).toEqual([
			[2, 1, 'ct_ann'],
		]);
		const sent = await call('POST', '/v1/messages', { body: 'conversation_id=1&message=hi' });
		expect(sent.body).toMatchObject({ id: 4, conversation_id: 1 });
		expect((await call('GET', '/v1/messages/4')).body.message).toBe('hi');
		expect((await call('GET', '/v1/conversations/1')).body).toMatchObject({
			id: 1,
			contact_id: 'ct_ann',
		});
	});
});

describe('reactions as one object', () => {
	test('reactionsAsObject: every message read (list, get, update) has one {name: reactors} object', async () => {
		await start({ quirks: { reactionsAsObject: true } });
		const body = 'reactions[like][]=ann&reactions[like][]=bob&reactions[rocket][]=cy';
		const updated = await call('PUT', '/v1/messages/msg_00000001', { body });
		const expected = { like: ['ann', 'bob'], rocket: ['cy'] };
		expect(updated.body.reactions).toEqual(expected);
		expect((await call('GET', '/v1/messages/msg_00000001')).body.reactions).toEqual(expected);
		const list = await call('GET', '/v1/messages?limit=10');
		expect(list.body.data.map((m) => m.reactions)).toEqual([{}, {}, expected]);
		expect(parseArgs(['--reactions-as-object']).quirks).toEqual({ reactionsAsObject: true });
	});
});

describe('page sizes', () => {
	test('refuseLargePages: a limit above the maximum is a 400 naming it, not a shorter page', async () => {
		await start({ maxPageSize: 2, quirks: { refuseLargePages: true } });
		const refused = await call('GET', '/v1/messages?limit=3');
		expect(refused.status).toBe(400);
		expect(refused.body.error.message).toBe('limit must be between 1 and 2');
		expect((await call('GET', '/v1/messages?limit=2')).body.data).toHaveLength(2);
	});
});

describe('timestamps', () => {
	test('sent as numeric strings: every timestamp field, or the ones named', async () => {
		await start({ quirks: { timestampsAsStrings: true } });
		sandbox.store.updateConversation('conv_00000001', { archived_at: '500' });
		const message = (await call('GET', '/v1/messages/msg_00000001')).body;
		expect(message).toMatchObject({
			created_at: '1000',
			read_at: null,
			updated_at: null,
			contact: { created_at: expect.stringMatching(/^\d+$/) },
		});
		expect((await call('GET', '/v1/messages?limit=1')).body.data[0].created_at).toBe('1002');
		expect((await call('GET', '/v1/conversations')).body.data[0]).toMatchObject({
			created_at: expect.stringMatching(/^\d+$/),
			archived_at: '500',
			last_active_at: '1002',
		});
		sandbox.set({ quirks: { timestampsAsStrings: ['created_at'] } });
		expect((await call('GET', '/v1/conversations')).body.data[0]).toMatchObject({
			created_at: expect.stringMatching(/^\d+$/),
			archived_at: 500,
		});
		expect(() => sandbox.set({ quirks: { timestampsAsStrings: ['sent_at'] } })).toThrow(
			/timestampsAsStrings/,
		);
		expect(() => sandbox.set({ quirks: { listshape: 'x' } })).toThrow(/Unknown quirk listshape/);
	});

	test('a message re-dated after creation moves in the list', async () => {
		await start();
		sandbox.store.redate('msg_00000001', 5000);
		expect((await call('GET', '/v1/messages/msg_00000001')).body.created_at).toBe(5000);
		expect((await call('GET', '/v1/messages')).body.data.map((m) => m.id)).toEqual([
			'msg_00000001',
			'msg_00000003',
			'msg_00000002',
		]);
		sandbox.store.redate('conv_00000001', 7);
		expect(sandbox.store.conversation('conv_00000001').created_at).toBe(7);
		expect(() => sandbox.store.redate('msg_nope', 1)).toThrow(/No such message or conversation/);
	});

	test('a clock in milliseconds, or seconds, from the same injected clock', async () => {
		const clock = () => 1_700_000_000_123;
		for (const [unit, expected] of [
			['ms', 1_700_000_000_123],
			['s', 1_700_000_000],
		]) {
			const service = await createSandbox({
				seed: 'none',
				unit,
				clock,
				tokens: { [TOKEN]: 'ct_me' },
			}).start();
			try {
				service.store.addContact({ id: 'ct_ann' });
				service.store.createConversation({ contact_id: 'ct_ann' });
				const sent = await call('POST', '/v1/messages', {
					base: service.url,
					body: 'conversation_id=conv_00000001&message=t',
				});
				expect(sent.body.created_at).toBe(expected);
			} finally {
				await service.stop();
			}
		}
	});
});

describe('long histories', () => {
	test('thousands of messages seeded at once; oldest first; a page cap below what is asked', async () => {
		({ sandbox } = await startSandbox({
			seed: 'none',
			order: 'oldest_first',
			maxPageSize: 50,
			history: 20_000,
		}));
		const conversation = sandbox.historyConversationId;
		expect(sandbox.store.listMessages({ conversation_id: conversation })).toHaveLength(20_000);
		const first = (await call('GET', `/v1/messages?conversation_id=${conversation}&limit=100`))
			.body;
		expect(first.has_more).toBe(true);
		expect(first.data).toHaveLength(50);
		expect(first.data[0]).toMatchObject({ message: 'history 0', contact: { id: 'ct_history' } });
		expect(first.data[0].created_at).toBeLessThan(first.data[49].created_at);
		let cursor = first.data.at(-1).id;
		let pages = 1;
		let last;
		do {
			last = (
				await call(
					'GET',
					`/v1/messages?conversation_id=${conversation}&limit=100&starting_after=${cursor}`,
				)
			).body;
			cursor = last.data.at(-1).id;
			pages += 1;
		} while (last.has_more);
		expect(pages).toBe(400);
		expect(last.data.at(-1).message).toBe('history 19999');
		sandbox.set({ maxPageSize: 100 });
		expect(
			(await call('GET', `/v1/messages?conversation_id=${conversation}&limit=100`)).body.data,
		).toHaveLength(100);
	});

	test('addHistory: spacing, end time, sender; lists see direct writes to the maps', async () => {
		await start();
		const { firstId, lastId } = sandbox.store.addHistory('conv_00000001', 5, {
			endAt: 9000,
			step: 10,
			senderId: 'ct_me',
			text: (i) => `h${i}`,
		});
		expect(sandbox.store.message(firstId)).toMatchObject({
			created_at: 8960,
			contact: 'ct_me',
			message: 'h0',
		});
		expect(sandbox.store.message(lastId)).toMatchObject({ created_at: 9000, message: 'h4' });
		expect(sandbox.store.conversation('conv_00000001').last_active_at).toBe(9000);
		expect((await call('GET', '/v1/messages?limit=1')).body.data[0].id).toBe(lastId);
		sandbox.store.messages.delete(lastId); // as the benchmark resets its data
		expect((await call('GET', '/v1/messages?limit=1')).body.data[0].id).not.toBe(lastId);
	});
});

/** Waits, a turn of the event loop at a time, for what the server has to observe (a socket event). */
async function until(condition) {
	for (let i = 0; i < 2000 && !condition(); i++)
		await new Promise((resolve) => setTimeout(resolve, 1));
	expect(condition()).toBe(true);
}
