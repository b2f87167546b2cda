'use strict';
/**
 * The sandbox's odd answers, each off by default, as a client sees them on the wire: malformed and misleading
 * bodies, numeric ids, reactions as one object, page sizes, timestamps, long histories.
 */
const { startSandbox, TOKEN } = require('./harness/sandbox');
const { startWithHistory, callOn } = require('./harness/quirks');
const { createSandbox } = require('../sandbox/server');
const { parseArgs } = require('../sandbox/cli');

let sandbox;
afterEach(() => sandbox?.stop());
const call = callOn(() => sandbox);
async function start(options = {}) {
	sandbox = await startWithHistory(options);
}

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

describe('ids in any case', () => {
	test('idsIgnoreCase: an id sent in upper case (path, filter, cursor) is the stored one, written as stored', async () => {
		await start({ quirks: { idsIgnoreCase: true } });
		const list = await call(
			'GET',
			'/v1/messages?conversation_id=CONV_00000001&limit=1&starting_after=MSG_00000003',
		);
		expect(list.body.data.map((m) => [m.id, m.conversation_id])).toEqual([
			['msg_00000002', 'conv_00000001'],
		]);
		expect((await call('GET', '/v1/conversations/Conv_00000001')).body.id).toBe('conv_00000001');
		expect(parseArgs(['--ids-ignore-case']).quirks).toEqual({ idsIgnoreCase: true });
		await sandbox.stop();
		await start();
		expect((await call('GET', '/v1/conversations/CONV_00000001')).status).toBe(404);
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
