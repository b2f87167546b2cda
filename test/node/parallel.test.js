'use strict';
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');

let sandbox;
let credentials;
let ids;
beforeEach(async () => {
	// Latency with jitter, as on a network: answers come back out of order.
	({ sandbox, credentials } = await startSandbox({
		seed: 'none',
		latencyMs: 10,
		latencyJitterMs: 10,
	}));
	sandbox.store.addContact({ id: 'ct_ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' });
	for (let i = 0; i < 40; i++)
		sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: `m${i}` });
	ids = [...sandbox.store.messages.keys()];
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const getMessages = (input, options = {}) =>
	runMessagingNode({
		parameters: { resource: 'message', operation: 'get', messageId: '={{ $json.id }}', options },
		input,
		credentials,
	});

test.each([
	[{ parallelRequests: 4 }, 4],
	[{}, 8], // the default
	[{ parallelRequests: 1 }, 1],
])(
	'Parallel Requests %j: at most %i requests reach the service at once; output in item order',
	async (options, limit) => {
		const { items, error } = await getMessages(
			ids.map((id) => ({ id })),
			options,
		);
		expect(error).toBeUndefined();
		expect(sandbox.stats.peakInFlight).toBe(limit);
		expect(items.map((i) => i.json.id)).toEqual(ids);
		expect(items.map((i) => i.pairedItem.item)).toEqual(ids.map((_, i) => i));
	},
);

test('Send (one at a time by default): never two in flight, stored in item order', async () => {
	const input = Array.from({ length: 15 }, (_, n) => ({ n }));
	const { error } = await runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: '=send {{ $json.n }}',
		},
		input,
		credentials,
	});
	expect(error).toBeUndefined();
	expect(sandbox.stats.peakInFlight).toBe(1);
	const stored = sandbox.store
		.listMessages({ conversation_id: 'conv_00000001' })
		.map((m) => m.message)
		.filter((t) => t.startsWith('send '));
	expect(stored).toEqual(input.map(({ n }) => `send ${n}`));
});

test('a failing item stops the run: it is the error reported, and the items after it are not all requested', async () => {
	const input = ids.map((id) => ({ id }));
	input[5] = { id: 'msg_missing' };
	const { error, items } = await getMessages(input, { parallelRequests: 4 });
	expect(error.message).toBe('Not found: No such message: msg_missing');
	expect(items).toEqual([]);
	// The items in flight finish, no new one starts: with 10-20 ms per request, far fewer than 40 are requested.
	expect(sandbox.requests.length).toBeLessThan(input.length);
});
