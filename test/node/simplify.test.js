'use strict';
const { runMessagingNode, fetchTestEvent } = require('../harness/n8n');
const { startSandbox, byId, wire } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_me', username: 'me' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.sendMessage(
		'ct_ann',
		{ conversation_id: 'conv_00000001', message: 'hello' },
		{ createdAt: 1_700_000_000 },
	);
	store.sendMessage(
		'ct_me',
		{ conversation_id: 'conv_00000001', message: 'hi ann' },
		{ createdAt: 1_700_000_060 },
	);
	store.updateMessage('msg_00000001', { reactions: { like: ['ct_me'] } });
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const run = (parameters, extra = {}) =>
	runMessagingNode({
		parameters: { resource: 'message', ...parameters },
		credentials,
		typeVersion: 2,
		...extra,
	});

describe('Simplify (node version 2: on by default)', () => {
	test('Get Many: compact messages, "me" told by the one-to-one conversation, no phone numbers or avatars', async () => {
		const { items, error } = await run({
			operation: 'getAll',
			filters: { conversationId: byId('conv_00000001') },
		});
		expect(error).toBeUndefined();
		const json = items.map((i) => i.json);
		expect(json.find((m) => m.id === 'msg_00000001')).toMatchObject({
			from: 'ann',
			from_id: 'ct_ann',
			from_me: false,
			text: 'hello',
			sent_at: '2023-11-14T22:13:20.000Z',
			reactions: { like: 1 },
			reacted_by: { like: ['ct_me'] },
		});
		expect(json.find((m) => m.id === 'msg_00000002')).toMatchObject({ from: 'me', from_me: true });
		expect(JSON.stringify(json)).not.toMatch(/phone_number|avatar_url|\+1555/);
		expect(Object.keys(json[0]).sort()).toEqual(
			[
				'attachments',
				'conversation_id',
				'edited_at',
				'from',
				'from_id',
				'from_me',
				'id',
				'reacted_by',
				'reactions',
				'read_at',
				'sent_at',
				'text',
			].sort(),
		);
	});

	test('Get Many with Your Contact ID on the credential: "me" by it, no extra request', async () => {
		const { items } = await run(
			{ operation: 'getAll', filters: { conversationId: byId('conv_00000001') } },
			{ credentials: { ...credentials, ownContactId: 'me' } },
		);
		expect(items.map((i) => [i.json.text, i.json.from_me])).toEqual(
			expect.arrayContaining([
				['hello', false],
				['hi ann', true],
			]),
		);
		expect(wire(sandbox).map((r) => r.url)).toEqual([
			'/v1/messages?conversation_id=conv_00000001&limit=50',
		]);
	});

	test('Send: the sent message, mine', async () => {
		const { items } = await run({
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'ok',
		});
		expect(items[0].json).toMatchObject({
			text: 'ok',
			from: 'me',
			from_me: true,
			conversation_id: 'conv_00000001',
		});
		expect(items[0].json.contact).toBeUndefined();
	});

	test('Send and Wait for Reply: the sent message simplified (here no reply came)', async () => {
		const { items, error } = await run({
			operation: 'sendAndWaitForReply',
			conversationId: byId('conv_00000001'),
			message: 'Size S or M?',
			replyTimeout: 1,
			checkInterval: 0.2,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({
			sent: expect.objectContaining({ text: 'Size S or M?', from: 'me', from_me: true }),
			reply: null,
			timedOut: true,
		});
	});

	test('Off, and in version 1 by default: the service’s record, unchanged', async () => {
		const off = await run({ operation: 'get', messageId: byId('msg_00000001'), simplify: false });
		const v1 = await run({ operation: 'get', messageId: byId('msg_00000001') }, { typeVersion: 1 });
		for (const { items } of [off, v1]) {
			expect(items[0].json).toMatchObject({
				message: 'hello',
				contact: { id: 'ct_ann', phone_number: expect.any(String) },
			});
			expect(items[0].json.text).toBeUndefined();
		}
	});

	test('Conversation Get Many: with whom and the states, nothing else', async () => {
		const { items } = await run({ resource: 'conversation', operation: 'getAll' });
		expect(items.map((i) => i.json)).toEqual([
			{
				id: 'conv_00000001',
				contact_id: 'ct_ann',
				group_id: null,
				pinned: false,
				muted: false,
				archived: false,
				last_active_at: '2023-11-14T22:14:20.000Z',
			},
		]);
	});
});

describe('Get Many of a conversation that does not exist', () => {
	for (const unknownListsEmpty of [false, true]) {
		test(`is an error naming the id, not an empty result (service lists it ${unknownListsEmpty ? 'empty' : 'as 404'})`, async () => {
			sandbox.set({ quirks: { unknownListsEmpty } });
			const { items, error } = await run({
				operation: 'getAll',
				filters: { conversationId: byId('conv_nope') },
				simplify: false,
			});
			expect(items).toEqual([]);
			expect(error.message).toBe('Conversation "conv_nope" does not exist');
		});
	}

	test('an empty conversation that exists is an empty result', async () => {
		sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000002
		const { items, error } = await run({
			operation: 'getAll',
			filters: { conversationId: byId('conv_00000002') },
			simplify: false,
		});
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
		expect(wire(sandbox).map((r) => r.url)).toEqual([
			'/v1/messages?conversation_id=conv_00000002&limit=50',
			'/v1/conversations/conv_00000002',
		]);
	});
});

describe('Messaging Trigger: Simplify option (off by default, no new trigger version)', () => {
	for (const typeVersion of [1, 2]) {
		test(`version ${typeVersion}: the newest message, compact`, async () => {
			const on = await fetchTestEvent({
				credentials,
				typeVersion,
				parameters: { options: { simplify: true } },
			});
			expect(on.error).toBeUndefined();
			expect(on.items.map((i) => i.json)).toEqual([
				expect.objectContaining({
					id: 'msg_00000002',
					from: 'me',
					text: 'hi ann',
					sent_at: '2023-11-14T22:14:20.000Z',
				}),
			]);
			const off = await fetchTestEvent({ credentials, typeVersion, parameters: {} });
			expect(off.items[0].json).toMatchObject({ message: 'hi ann', contact: { id: 'ct_me' } });
		});
	}
});

describe("Messaging Trigger: Simplify's from_me from the account's contact", () => {
	const { createTriggerHost } = require('../harness/n8n');
	let host;
	beforeEach(() => {
		jest.useFakeTimers({
			doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'performance'],
		});
	});
	afterEach(async () => {
		if (host?.process) await host.stop();
		host = undefined;
		jest.useRealTimers();
	});
	const fromMe = (items) => items.map((j) => [j.id, j.from_me]);

	test('Fetch Test Event (versions 1 and 2): Your Contact ID tells from_me', async () => {
		for (const typeVersion of [1, 2]) {
			const { items, error } = await fetchTestEvent({
				credentials: { ...credentials, ownContactId: 'ct_me' },
				typeVersion,
				parameters: { options: { simplify: true } },
			});
			expect(error).toBeUndefined();
			expect(fromMe(items.map((i) => i.json))).toEqual([['msg_00000002', true]]);
		}
	});

	test("version 2 active, Your Contact ID set: the account's messages from_me true, others' false", async () => {
		host = await createTriggerHost({
			credentials: { ...credentials, ownContactId: 'ct_me' },
			parameters: {
				interval: 5,
				unit: 'seconds',
				options: { simplify: true, emitExisting: true, skipOwnMessages: false },
			},
		}).start();
		if (host.executions.length === 0) await host.tick();
		expect(fromMe(host.delivered())).toEqual([
			['msg_00000001', false],
			['msg_00000002', true],
		]);
	});

	test("version 2 active, the contact learned (no Your Contact ID): others' messages from_me false, then and after", async () => {
		host = await createTriggerHost({
			credentials,
			parameters: { interval: 5, unit: 'seconds', options: { simplify: true } },
		}).start();
		const send = (from, text, createdAt) =>
			sandbox.store.sendMessage(
				from,
				{ conversation_id: 'conv_00000001', message: text },
				{ createdAt },
			);
		send('ct_me', 'are you there?', 1_700_000_120);
		send('ct_ann', 'yes', 1_700_000_180);
		await host.tick();
		expect(host.savedState().state.ownContactId).toBe('ct_me');
		send('ct_ann', 'still here', 1_700_000_240);
		await host.tick();
		expect(fromMe(host.delivered())).toEqual([
			['msg_00000004', false],
			['msg_00000005', false],
		]);
	});
});
