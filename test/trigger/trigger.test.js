'use strict';
const { createTrigger, runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');

let sandbox;
let credentials;
let now; // the service's clock, in milliseconds
async function setup(options = {}) {
	now = Math.floor(Date.now() / 1000) * 1000;
	({ sandbox, credentials } = await startSandbox({ seed: 'none', clock: () => now, ...options }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_bob', username: 'bob' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.createConversation({ contact_id: 'ct_bob' }); // conv_00000002
}
afterEach(() => sandbox.stop());

const send = (text, { from = 'ct_ann', conversation = 'conv_00000001', createdAt } = {}) =>
	sandbox.store.sendMessage(from, { conversation_id: conversation, message: text }, { createdAt });
const texts = (result) => (result ? result[0].map((item) => item.json.message) : []);
const tick = (seconds = 1) => {
	now += seconds * 1000;
};

describe('Messaging Trigger', () => {
	beforeEach(() => setup());

	test('the first poll records where the stream stands and emits nothing; then each new message once, oldest first', async () => {
		send('old 1');
		send('old 2');
		const trigger = createTrigger({ credentials });
		expect(await trigger.poll()).toBeNull();
		expect(trigger.state().state).toMatchObject({ version: 1, recent: [['msg_00000001', expect.any(Number)], ['msg_00000002', expect.any(Number)]] });

		tick();
		send('new 1');
		send('new 2');
		tick();
		send('new 3', { from: 'ct_bob', conversation: 'conv_00000002' });
		const result = await trigger.poll();
		expect(texts(result)).toEqual(['new 1', 'new 2', 'new 3']);
		expect(result[0].every((item) => item.json.contact.id !== undefined)).toBe(true);
		expect(await trigger.poll()).toBeNull();
	});

	test('a poll with nothing new sends exactly one request', async () => {
		for (let i = 0; i < 30; i++) send(`m${i}`);
		const trigger = createTrigger({ credentials });
		await trigger.poll();
		sandbox.clearRequests();
		expect(await trigger.poll()).toBeNull();
		expect(sandbox.requests).toHaveLength(1);
		expect(sandbox.requests[0].query).toBe('?limit=100');
	});

	test('Emit Existing Messages on Activation emits what exists, oldest first', async () => {
		send('a');
		tick();
		send('b');
		const trigger = createTrigger({ credentials, parameters: { options: { emitExisting: true } } });
		expect(texts(await trigger.poll())).toEqual(['a', 'b']);
		expect(await trigger.poll()).toBeNull();
	});

	test('only the chosen conversation', async () => {
		const trigger = createTrigger({ credentials, parameters: { conversationId: byId('conv_00000002') } });
		await trigger.poll();
		send('not this one');
		send('this one', { from: 'ct_bob', conversation: 'conv_00000002' });
		expect(texts(await trigger.poll())).toEqual(['this one']);
		expect(sandbox.requests.filter((r) => r.path === '/v1/messages').at(-1).query).toBe('?conversation_id=conv_00000002&limit=100');
	});

	test.each([
		['401', () => (credentials.accessToken = 'bad'), 'Authentication failed: check the access token of the Messaging API credential'],
		['500', () => sandbox.failNext({ status: 500 }), 'The Messaging service failed (500): Internal server error'],
		['429 that does not stop', () => sandbox.set({ faults: { rate429: 1, retryAfterSeconds: 0 } }), /^The Messaging service is rate limiting requests \(gave up after \d+ attempts\)$/],
		['dropped connections', () => sandbox.failNext(...Array(6).fill({ drop: 'before' })), 'The connection to the Messaging service was lost'],
		['a body that is not JSON', () => sandbox.failNext({ status: 200, html: 'oops' }), 'The Messaging service answered with something that is not JSON'],
		['a body without data', () => sandbox.failNext({ status: 200, html: '{"has_more":false}' }), 'without a "data" array'],
	])('a poll that fails (%s) throws a readable error and leaves the state exactly as it was', async (_name, breakIt, message) => {
		send('before');
		const trigger = createTrigger({ credentials });
		await trigger.poll();
		tick();
		send('during the outage 1');
		send('during the outage 2');
		const before = JSON.stringify(trigger.state());
		const token = credentials.accessToken;
		breakIt();
		await expect(trigger.poll()).rejects.toThrow(message);
		expect(JSON.stringify(trigger.state())).toBe(before);
		credentials.accessToken = token;
		sandbox.set({ faults: {} });
		expect(texts(await trigger.poll())).toEqual(['during the outage 1', 'during the outage 2']);
	}, 90_000);

	test('many messages sharing one second: none lost, none repeated, across polls', async () => {
		const trigger = createTrigger({ credentials });
		await trigger.poll();
		const delivered = [];
		for (let round = 0; round < 4; round++) {
			for (let i = 0; i < 30; i++) send(`s${round}-${i}`); // the clock does not move: one created_at
			delivered.push(...texts(await trigger.poll()));
		}
		expect(delivered).toHaveLength(120);
		expect(new Set(delivered).size).toBe(120);
		expect(await trigger.poll()).toBeNull();
	});

	test('more than a page between polls: pages back with the cursor, delivers all in order', async () => {
		const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 20 } } });
		await trigger.poll();
		for (let i = 0; i < 95; i++) {
			if (i % 7 === 0) tick();
			send(`b${i}`);
		}
		sandbox.clearRequests();
		const result = await trigger.poll();
		expect(texts(result)).toEqual(Array.from({ length: 95 }, (_, i) => `b${i}`));
		expect(sandbox.requests.filter((r) => r.path === '/v1/messages').map((r) => r.query)).toEqual([
			'?limit=20',
			'?limit=20&starting_after=msg_00000076',
			'?limit=20&starting_after=msg_00000056',
			'?limit=20&starting_after=msg_00000036',
			'?limit=20&starting_after=msg_00000016',
		]);
	});

	test('a service that ignores the cursor: delivers what it can and marks the possible gap on the items', async () => {
		const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 10 } } });
		await trigger.poll();
		tick();
		for (let i = 0; i < 25; i++) send(`c${i}`);
		sandbox.set({ ignoreCursor: true });
		const result = await trigger.poll();
		expect(texts(result)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i + 15}`));
		expect(result[0][0].json.warning).toMatch(/^Possible gap: the service did not page further/);
	});

	test('a late arrival inside the look-back window is delivered once; one older than the window is not', async () => {
		const trigger = createTrigger({ credentials, parameters: { options: { lookBackSeconds: 60 } } });
		await trigger.poll();
		send('newest');
		expect(texts(await trigger.poll())).toEqual(['newest']);
		const newest = now / 1000;
		send('late by 30 s', { createdAt: newest - 30 });
		send('late by 90 s', { createdAt: newest - 90 });
		expect(texts(await trigger.poll())).toEqual(['late by 30 s']);
		expect(await trigger.poll()).toBeNull();
	});

	test('a message dated far in the future is delivered and does not freeze the trigger', async () => {
		const trigger = createTrigger({ credentials });
		await trigger.poll();
		send('from the future', { createdAt: now / 1000 + 365 * 86400 });
		expect(texts(await trigger.poll())).toEqual(['from the future']);
		tick();
		send('normal again');
		expect(texts(await trigger.poll())).toEqual(['normal again']);
		expect(await trigger.poll()).toBeNull();
	});

	test('lists oldest first? still every message once, oldest first', async () => {
		sandbox.set({ order: 'oldest_first' });
		for (let i = 0; i < 15; i++) send(`o${i}`);
		const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 4 } } });
		await trigger.poll();
		tick();
		for (let i = 0; i < 9; i++) send(`n${i}`);
		expect(texts(await trigger.poll())).toEqual(Array.from({ length: 9 }, (_, i) => `n${i}`));
		expect(await trigger.poll()).toBeNull();
	});

	test('Fetch Test Event returns the newest message and neither reads nor writes the state', async () => {
		const trigger = createTrigger({ credentials });
		await expect(trigger.poll('manual')).rejects.toThrow('There are no messages yet');
		send('first');
		tick();
		send('second');
		const result = await trigger.poll('manual');
		expect(texts(result)).toEqual(['second']);
		expect(trigger.state()).toBeUndefined();
	});

	test('the stored state stays small: bytes after 100,000 messages', async () => {
		const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 100 } } });
		await trigger.poll();
		let delivered = 0;
		let largest = 0;
		for (let round = 0; round < 100; round++) {
			for (let i = 0; i < 1000; i++) {
				if (i % 100 === 0) tick();
				send(`x${round}-${i}`);
			}
			delivered += texts(await trigger.poll()).length;
			largest = Math.max(largest, JSON.stringify(trigger.state()).length);
		}
		expect(delivered).toBe(100_000);
		const bytes = JSON.stringify(trigger.state()).length;
		console.log(`trigger state after 100,000 messages: ${bytes} bytes (largest after any poll: ${largest} bytes)`);
		expect(largest).toBeLessThan(25_000);
	}, 300_000);
});

describe('Messaging Trigger with millisecond timestamps', () => {
	beforeEach(() => setup({ unit: 'ms' }));

	test('same guarantees: same-millisecond bursts, late arrivals, ISO output', async () => {
		const trigger = createTrigger({ credentials, parameters: { options: { isoTimestamps: true } } });
		send('before');
		await trigger.poll();
		now += 5;
		for (let i = 0; i < 12; i++) send(`ms${i}`);
		const result = await trigger.poll();
		expect(texts(result)).toEqual(Array.from({ length: 12 }, (_, i) => `ms${i}`));
		expect(result[0][0].json.created_at_iso).toBe(new Date(now).toISOString());
		send('late by 20 s', { createdAt: now - 20_000 });
		expect(texts(await trigger.poll())).toEqual(['late by 20 s']);
		expect(trigger.state().state.settledThrough).toBe(now - 60_000);
	});
});

describe('loop safety: an auto-reply never answers itself', () => {
	beforeEach(() => setup());

	test('a Send made in reaction to an emitted message is not emitted again (own contact learned)', async () => {
		const trigger = createTrigger({ credentials });
		await trigger.poll();
		tick();
		send('Can you help?');
		const incoming = await trigger.poll();
		expect(texts(incoming)).toEqual(['Can you help?']);

		// The auto-reply: the Messaging node answers in the same conversation, as the credential's account.
		const reply = await runMessagingNode({
			parameters: { resource: 'message', operation: 'send', conversationId: '={{ $json.conversation_id }}', text: '=Re: {{ $json.message }}' },
			input: incoming[0].map((item) => item.json),
			credentials,
		});
		expect(reply.items[0].json.contact.id).toBe('ct_me');

		tick();
		expect(await trigger.poll()).toBeNull();
		expect(trigger.state().state.ownContactId).toBe('ct_me');
		send('Thanks!');
		expect(texts(await trigger.poll())).toEqual(['Thanks!']);
	});

	test('with "Your Contact ID" on the credential nothing is looked up; turned off, own messages are emitted', async () => {
		credentials.ownContactId = 'me';
		const trigger = createTrigger({ credentials });
		await trigger.poll();
		send('mine', { from: 'ct_me' });
		send('theirs');
		sandbox.clearRequests();
		expect(texts(await trigger.poll())).toEqual(['theirs']);
		expect(sandbox.requests).toHaveLength(1);

		const all = createTrigger({ credentials, parameters: { options: { skipOwnMessages: false } } });
		await all.poll();
		tick();
		send('mine again', { from: 'ct_me' });
		expect(texts(await all.poll())).toEqual(['mine again']);
	});
});
