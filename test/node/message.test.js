'use strict';
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId, wire, TOKEN } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	const { store } = sandbox;
	for (const id of ['ct_ann', 'ct_bob']) store.addContact({ id, username: id.slice(3) });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.createConversation({ contact_id: 'ct_bob' }); // conv_00000002
	store.sendMessage(
		'ct_ann',
		{ conversation_id: 'conv_00000001', message: 'hello' },
		{ createdAt: 1_700_000_000 },
	); // msg_00000001
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const run = (parameters, extra = {}) =>
	runMessagingNode({ parameters: { resource: 'message', ...parameters }, credentials, ...extra });

describe('Message', () => {
	test('Send: form body on the wire, the bearer header, the created message out', async () => {
		const { items, error } = await run({
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'Hi & welcome = [ok] 👋',
			additionalFields: { attachments: '[{"name":"a b.pdf","size":3}]' },
		});
		expect(error).toBeUndefined();
		expect(wire(sandbox)).toEqual([
			{
				method: 'POST',
				url: '/v1/messages',
				body: 'conversation_id=conv_00000001&message=Hi%20%26%20welcome%20%3D%20%5Bok%5D%20%F0%9F%91%8B&attachments[0][name]=a%20b.pdf&attachments[0][size]=3',
			},
		]);
		expect(sandbox.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
		expect(sandbox.requests[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[0].json).toMatchObject({
			id: 'msg_00000002',
			conversation_id: 'conv_00000001',
			message: 'Hi & welcome = [ok] 👋',
			contact: { id: 'ct_me' },
			attachments: [{ name: 'a b.pdf', size: '3' }],
			reactions: [],
			read_at: null,
			updated_at: null,
		});
	});

	test('Send: items go out one at a time, in item order, each paired with its item', async () => {
		const input = Array.from({ length: 12 }, (_, i) => ({ n: i }));
		const { items } = await run(
			{
				operation: 'send',
				conversationId: byId('conv_00000002'),
				text: '={{ "number " + $json.n }}',
			},
			{ input },
		);
		expect(items.map((i) => i.json.message)).toEqual(input.map((x) => `number ${x.n}`));
		expect(items.map((i) => i.pairedItem.item)).toEqual(input.map((_, i) => i));
		const stored = sandbox.store
			.listMessages({ conversation_id: 'conv_00000002' })
			.map((m) => m.message);
		expect(stored).toEqual(input.map((x) => `number ${x.n}`));
	});

	test('Send and Add Reaction: a number or a boolean from an expression goes as text', async () => {
		const input = [{ orderNo: 10482, paid: true, userId: 42 }];
		const { items, error } = await run(
			{
				operation: 'send',
				conversationId: byId('conv_00000001'),
				text: '={{ $json.orderNo }}',
			},
			{ input },
		);
		expect(error).toBeUndefined();
		expect(items[0].json.message).toBe('10482');
		await run(
			{ operation: 'send', conversationId: byId('conv_00000001'), text: '={{ $json.paid }}' },
			{ input },
		);
		await run(
			{
				operation: 'addReaction',
				messageId: byId('msg_00000001'),
				reaction: 'like',
				reactor: '={{ $json.userId }}',
			},
			{ input },
		);
		expect(wire(sandbox).map((r) => r.body)).toEqual([
			'conversation_id=conv_00000001&message=10482',
			'conversation_id=conv_00000001&message=true',
			'',
			'reactions[like][]=42',
		]);
	});

	test('Get: by ID, with ISO timestamps when asked', async () => {
		const { items } = await run({
			operation: 'get',
			messageId: byId('msg_00000001'),
			options: { isoTimestamps: true },
		});
		expect(wire(sandbox)).toEqual([{ method: 'GET', url: '/v1/messages/msg_00000001', body: '' }]);
		expect(items[0].json).toMatchObject({
			id: 'msg_00000001',
			created_at: 1_700_000_000,
			created_at_iso: '2023-11-14T22:13:20.000Z',
			read_at_iso: null,
		});
	});

	test('Get: an id with / ? # .. reaches the service as one segment', async () => {
		for (const id of ['../conversations/conv_00000001', 'a?b#c', '..%2F']) {
			const { error } = await run({ operation: 'get', messageId: byId(id) });
			expect(error.message).toBe(`Not found: No such message: ${id}`);
		}
		expect(wire(sandbox).map((r) => r.url)).toEqual([
			'/v1/messages/..%2Fconversations%2Fconv_00000001',
			'/v1/messages/a%3Fb%23c',
			'/v1/messages/..%252F',
		]);
	});

	test('Update: text, reactions from rows (names with & = [ spaces, non-ASCII) and attachments', async () => {
		const { items, error } = await run({
			operation: 'update',
			messageId: byId('msg_00000001'),
			updateFields: {
				text: 'edited',
				reactions: {
					reaction: [
						{ name: 'a&b=[c] d', reactors: 'zoë, x=y&z' },
						{ name: '👍', reactors: 'ann' },
					],
				},
				attachments: '[]',
			},
		});
		expect(error).toBeUndefined();
		expect(wire(sandbox)).toEqual([
			{
				method: 'PUT',
				url: '/v1/messages/msg_00000001',
				body: 'message=edited&reactions[a%26b%3D%5Bc%5D%20d][]=zo%C3%AB&reactions[a%26b%3D%5Bc%5D%20d][]=x%3Dy%26z&reactions[%F0%9F%91%8D][]=ann&attachments=',
			},
		]);
		expect(items[0].json.reactions).toEqual([{ 'a&b=[c] d': ['zoë', 'x=y&z'] }, { '👍': ['ann'] }]);
		expect(items[0].json.message).toBe('edited');
		expect(items[0].json.updated_at).toEqual(expect.any(Number));
	});

	test('Update: reactions given as a JSON object from an expression', async () => {
		const { items } = await run(
			{
				operation: 'update',
				messageId: byId('msg_00000001'),
				updateFields: { reactionsJson: '={{ $json.reactions }}' },
			},
			{ input: [{ reactions: { like: ['ann', 'bob'] } }] },
		);
		expect(wire(sandbox)[0].body).toBe('reactions[like][]=ann&reactions[like][]=bob');
		expect(items[0].json.reactions).toEqual([{ like: ['ann', 'bob'] }]);
	});

	test('Add Reaction and Remove Reaction keep everyone else’s reactions', async () => {
		sandbox.store.updateMessage('msg_00000001', { reactions: { like: ['bob'], love: ['cy'] } });
		let { items } = await run({
			operation: 'addReaction',
			messageId: byId('msg_00000001'),
			reaction: 'like',
			reactor: 'ann',
		});
		expect(items[0].json.reactions).toEqual([{ like: ['bob', 'ann'] }, { love: ['cy'] }]);
		({ items } = await run({
			operation: 'removeReaction',
			messageId: byId('msg_00000001'),
			reaction: 'love',
			reactor: 'cy',
		}));
		expect(items[0].json.reactions).toEqual([{ like: ['bob', 'ann'] }]);
		expect(wire(sandbox)).toEqual([
			{ method: 'GET', url: '/v1/messages/msg_00000001', body: '' },
			{
				method: 'PUT',
				url: '/v1/messages/msg_00000001',
				body: 'reactions[like][]=bob&reactions[like][]=ann&reactions[love][]=cy',
			},
			{ method: 'GET', url: '/v1/messages/msg_00000001', body: '' },
			{
				method: 'PUT',
				url: '/v1/messages/msg_00000001',
				body: 'reactions[like][]=bob&reactions[like][]=ann',
			},
		]);
	});

	test('Remove Reaction of the last reactor clears the reactions', async () => {
		sandbox.store.updateMessage('msg_00000001', { reactions: { like: ['ann'] } });
		const { items } = await run({
			operation: 'removeReaction',
			messageId: byId('msg_00000001'),
			reaction: 'like',
			reactor: 'ann',
		});
		expect(wire(sandbox)[1].body).toBe('reactions=');
		expect(items[0].json.reactions).toEqual([]);
	});

	test('Delete: DELETE, then { id, deleted: true }', async () => {
		const { items } = await run({ operation: 'delete', messageId: byId('msg_00000001') });
		expect(wire(sandbox)).toEqual([
			{ method: 'DELETE', url: '/v1/messages/msg_00000001', body: '' },
		]);
		expect(items).toEqual([
			{ json: { id: 'msg_00000001', deleted: true }, pairedItem: { item: 0 } },
		]);
		expect(sandbox.store.messages.has('msg_00000001')).toBe(false);
	});

	test('Get Many: limit and conversation filter on the wire, one item per message', async () => {
		for (let i = 0; i < 5; i++)
			sandbox.store.sendMessage('ct_bob', { conversation_id: 'conv_00000002', message: `m${i}` });
		sandbox.clearRequests();
		const { items, hints } = await run({
			operation: 'getAll',
			returnAll: false,
			limit: 3,
			filters: { conversationId: byId('conv_00000002') },
		});
		expect(wire(sandbox)).toEqual([
			{ method: 'GET', url: '/v1/messages?conversation_id=conv_00000002&limit=3', body: '' },
		]);
		expect(items).toHaveLength(3);
		expect(
			items.every((i) => i.json.conversation_id === 'conv_00000002' && i.pairedItem.item === 0),
		).toBe(true);
		// n8n's editor says "Limit of 3 items reached" itself (limitHint.test.js): no hint of ours.
		expect(hints).toEqual([]);
	});

	test('Get Many with Return All over 1,200 messages: every one once, largest pages, cursor on the wire', async () => {
		for (let i = 0; i < 1200; i++)
			sandbox.store.sendMessage('ct_bob', { conversation_id: 'conv_00000002', message: `m${i}` });
		sandbox.clearRequests();
		const { items } = await run({ operation: 'getAll', returnAll: true });
		expect(items).toHaveLength(1201);
		expect(new Set(items.map((i) => i.json.id)).size).toBe(1201);
		const urls = wire(sandbox).map((r) => r.url);
		expect(urls).toHaveLength(13);
		expect(urls[0]).toBe('/v1/messages?limit=100');
		expect(urls[1]).toBe(`/v1/messages?limit=100&starting_after=${items[99].json.id}`);
	});

	test('Get Many against a service that refuses pages above 40 (400): asks again with 40, then only 40', async () => {
		for (let i = 0; i < 99; i++)
			sandbox.store.sendMessage('ct_bob', { conversation_id: 'conv_00000002', message: `m${i}` });
		sandbox.set({ maxPageSize: 40, quirks: { refuseLargePages: true } });
		sandbox.clearRequests();
		const { items, error } = await run({ operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		expect(new Set(items.map((i) => i.json.id)).size).toBe(100);
		expect(sandbox.requests.map((r) => [r.status, r.query.match(/limit=\d+/)[0]])).toEqual([
			[400, 'limit=100'],
			[200, 'limit=40'],
			[200, 'limit=40'],
			[200, 'limit=40'],
		]);
	});

	test('Get Many against a service that never says has_more and caps pages at 20: every record, then an empty page', async () => {
		for (let i = 0; i < 44; i++)
			sandbox.store.sendMessage('ct_bob', { conversation_id: 'conv_00000002', message: `m${i}` });
		sandbox.set({ maxPageSize: 20, quirks: { listShape: 'no-has-more' } });
		sandbox.clearRequests();
		const { items, error } = await run({ operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		expect(new Set(items.map((i) => i.json.id)).size).toBe(45);
		expect(sandbox.requests).toHaveLength(4); // 20, 20, 5, and the empty page that ends it
	});

	test('Get Many against a service that ignores the cursor: stops, no duplicates, says so', async () => {
		for (let i = 0; i < 250; i++)
			sandbox.store.sendMessage('ct_bob', { conversation_id: 'conv_00000002', message: `m${i}` });
		sandbox.set({ ignoreCursor: true });
		sandbox.clearRequests();
		const { items, hints } = await run({ operation: 'getAll', returnAll: true });
		expect(items).toHaveLength(100);
		expect(sandbox.requests).toHaveLength(2);
		expect(hints[0]).toMatchObject({
			type: 'warning',
			message: expect.stringContaining('may be incomplete'),
		});
	});
});
