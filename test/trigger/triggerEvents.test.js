'use strict';
/**
 * Version 2's events through n8n-core's TriggerContext (test/harness/n8n.js) against the sandbox: the
 * items each event gives, a burst as one execution, what a check costs, and the activation errors.
 */
const { createTriggerHost, fetchTestEvent, TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox } = require('../harness/sandbox');

let sandbox;
let credentials;
let now;
let host;

beforeEach(async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	now = Math.floor(Date.now() / 1000) * 1000;
	({ sandbox, credentials } = await startSandbox({
		seed: 'none',
		clock: () => now,
		credentials: { ownContactId: 'ct_me' },
	}));
	for (const id of ['ct_ann', 'ct_bob', 'ct_me']) sandbox.store.addContact({ id });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
});
afterEach(async () => {
	if (host?.process) await host.stop();
	host = undefined;
	jest.useRealTimers();
	await sandbox.stop();
});

const send = (text, from = 'ct_ann') =>
	sandbox.store.sendMessage(from, { conversation_id: 'conv_00000001', message: text });
const parameters = (events, options = {}) => ({ interval: 5, unit: 'seconds', events, options });
const newItems = (from) => host.executions.slice(from).flatMap((e) => e.json);

test("Message Edited, Reaction Added and Removed: one item per change, before and after, per reactor; the account's own left out", async () => {
	const first = send('helo');
	now += 1000;
	const second = send('I need help');
	host = await createTriggerHost({
		credentials,
		parameters: parameters(['messageEdited', 'reactionAdded', 'reactionRemoved']),
	}).start();
	expect(host.executions).toHaveLength(0);
	now += 1000;
	sandbox.store.updateMessage(first.id, { message: 'hello' });
	sandbox.store.updateMessage(second.id, {
		reactions: { '✅': ['ct_bob', 'ct_me'], '📌': ['ct_ann'] },
	});
	await host.tick();
	const items = newItems(0);
	expect(items.map((j) => [j.event, j.message.id, j.reaction, j.reactor])).toEqual([
		['messageEdited', first.id, undefined, undefined],
		['reactionAdded', second.id, '✅', 'ct_bob'],
		['reactionAdded', second.id, '📌', 'ct_ann'],
	]);
	expect(items[0]).toMatchObject({ before: { message: 'helo' }, after: { message: 'hello' } });
	expect(items[0].message.message).toBe('hello');
	for (const e of host.executions) e.end('success');
	const seen = host.executions.length;
	now += 1000;
	sandbox.store.updateMessage(second.id, { reactions: { '📌': ['ct_ann'] } });
	await host.tick();
	expect(newItems(seen).map((j) => [j.event, j.reaction, j.reactor])).toEqual([
		['reactionRemoved', '✅', 'ct_bob'],
	]);
	await host.tick();
	expect(newItems(seen)).toHaveLength(1); // nothing changed: nothing again
});

describe('Simplify on: the message inside event items is simplified, first and when emitted again', () => {
	const simplified = (message, text) =>
		expect(message).toEqual(expect.objectContaining({ text, from_id: 'ct_ann', from_me: false }));
	const editAndReact = async () => {
		const first = send('helo');
		host = await createTriggerHost({
			credentials,
			parameters: parameters(['messageEdited', 'reactionAdded'], { simplify: true }),
		}).start();
		now += 1000;
		sandbox.store.updateMessage(first.id, { message: 'hello', reactions: { '✅': ['ct_bob'] } });
		await host.tick();
		return first;
	};

	test('an edit and a reaction: event fields kept, the message compact', async () => {
		await editAndReact();
		const items = newItems(0);
		expect(items.map((j) => [j.event, j.reaction])).toEqual([
			['messageEdited', undefined],
			['reactionAdded', '✅'],
		]);
		expect(items[0]).toMatchObject({ before: { message: 'helo' }, after: { message: 'hello' } });
		for (const item of items) simplified(item.message, 'hello');
		expect(items[0].message).not.toHaveProperty('contact');
	});

	test('an event whose execution crashed is emitted again in the same shape, marked', async () => {
		await editAndReact();
		const [first] = host.executions;
		first.end('crashed');
		await host.tick();
		const marks = { redelivery: true, redeliveryReason: 'previousAttemptFailed', attempt: 2 };
		expect(host.executions.at(-1).json).toEqual(first.json.map((j) => ({ ...j, ...marks })));
	});

	test('after n8n was killed, an event read again by its key comes in the same shape, marked', async () => {
		await editAndReact();
		const [edit] = host.executions;
		await host.crash();
		await host.start();
		await host.idle(host.checksDone);
		const again = host.executions.filter((e) => e.processNumber === 2 && e.json[0].redelivery);
		const json = again.find((e) => e.json[0].event === 'messageEdited').json[0];
		expect(json).toMatchObject({ event: 'messageEdited', after: { message: 'hello' } });
		simplified(json.message, 'hello');
		expect(json.message.id).toBe(edit.json[0].message.id);
	});
});

test('New Conversation: each conversation created after activation, once', async () => {
	host = await createTriggerHost({
		credentials,
		parameters: parameters(['newConversation']),
	}).start();
	now += 1000;
	const created = sandbox.store.createConversation({ contact_id: 'ct_bob' });
	await host.tick();
	await host.tick();
	expect(newItems(0)).toEqual([{ event: 'newConversation', conversation: created }]);
});

test('Group Bursts: 5 fragments from one sender give one execution with one item, once the sender has been quiet', async () => {
	host = await createTriggerHost({
		credentials,
		parameters: parameters(['newMessage'], { groupBursts: true, quietPeriod: 10, maxWait: 60 }),
	}).start();
	// The service's clock keeps pace with the checks, 5 s apart.
	const tick = async () => {
		now += 5000;
		await host.tick();
	};
	const fragments = ['hi', 'I have a problem', 'with my order', '#1234', 'it never came'];
	for (const text of fragments) {
		send(text);
		await tick();
		expect(host.executions).toHaveLength(0); // still typing
	}
	send('(from me)', 'ct_me');
	await tick();
	await tick();
	expect(host.executions).toHaveLength(1);
	const [item] = host.executions[0].json;
	expect(item).toMatchObject({
		event: 'messageBurst',
		conversation_id: 'conv_00000001',
		text: fragments.join('\n'),
		count: 5,
	});
	expect(item.firstMessageId).toBe(item.messages[0].id);
	expect(item.lastMessageId).toBe(item.messages[4].id);
	expect(host.state().state.bursts).toBeUndefined();
});

test.each([
	['New Message only (the default)', ['newMessage'], {}, ['GET /v1/messages']],
	[
		'edits and reactions, a window within one page',
		['newMessage', 'messageEdited', 'reactionAdded', 'reactionRemoved'],
		{},
		['GET /v1/messages'],
	],
	[
		'edits, a window of 20 over pages of 10',
		['messageEdited'],
		{ pageSize: 10 },
		['GET /v1/messages', 'GET /v1/messages', 'GET /v1/messages'],
	],
	[
		'New Conversation',
		['newMessage', 'newConversation'],
		{},
		['GET /v1/messages', 'GET /v1/conversations'],
	],
])('requests of a check with nothing new: %s', async (_, events, options, expected) => {
	for (let i = 0; i < 30; i++) send(`m${i}`);
	host = await createTriggerHost({ credentials, parameters: parameters(events, options) }).start();
	await host.tick();
	sandbox.clearRequests();
	await host.tick();
	expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(expected);
});

test.each([
	[[], {}, 'Events: choose at least one event'],
	[
		['messageEdited'],
		{ watchWindow: 0 },
		'Watch Window (Messages) must be a whole number from 1 to 200, not 0',
	],
	[
		['newMessage'],
		{ groupBursts: true, quietPeriod: 90, maxWait: 30 },
		'Quiet Period (Seconds) (90) must not be longer than Maximum Wait (Seconds) (30)',
	],
])('activation fails naming the option: %j %j', async (events, options, message) => {
	host = createTriggerHost({ credentials, parameters: parameters(events, options) });
	await expect(host.start()).rejects.toThrow(message);
	expect(sandbox.requests).toHaveLength(0);
});

describe('Fetch Test Event: the shape of the chosen events, the stored state untouched', () => {
	const testEvent = async (events) => {
		const result = await fetchTestEvent({ credentials, parameters: parameters(events) });
		expect(result.staticData).toEqual({});
		return result;
	};

	test('Message Edited (first chosen): the newest message, before = after, event messageEdited', async () => {
		send('first');
		now += 1000;
		const newest = send('I need help');
		const { items, error } = await testEvent(['messageEdited', 'reactionAdded']);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([
			{
				event: 'messageEdited',
				message: expect.objectContaining({ id: newest.id, message: 'I need help' }),
				before: { message: 'I need help' },
				after: { message: 'I need help' },
			},
		]);
	});

	test("Reaction Added: the newest message's first reaction and reactor, else an error saying there is none", async () => {
		const newest = send('I need help');
		const none = await testEvent(['reactionAdded']);
		expect(none.error.message).toBe(`The newest message (${newest.id}) has no reaction yet`);
		sandbox.store.updateMessage(newest.id, { reactions: { '👍': ['ct_bob'] } });
		const { items, error } = await testEvent(['reactionRemoved', 'reactionAdded']);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([
			{
				event: 'reactionRemoved',
				message: expect.objectContaining({ id: newest.id }),
				reaction: '👍',
				reactor: 'ct_bob',
			},
		]);
	});

	test('New Conversation: the newest conversation', async () => {
		now += 1000;
		const newest = sandbox.store.createConversation({ contact_id: 'ct_bob' });
		const { items, error } = await testEvent(['newConversation', 'messageEdited']);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([
			{
				event: 'newConversation',
				conversation: expect.objectContaining({ id: newest.id, contact_id: 'ct_bob' }),
			},
		]);
	});

	test("New Message among the events: today's item, the plain newest message", async () => {
		const newest = send('I need help');
		const { items, error } = await testEvent(['reactionAdded', 'newMessage']);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([
			expect.objectContaining({ id: newest.id, message: 'I need help' }),
		]);
		expect(items[0].json.event).toBeUndefined();
	});
});
