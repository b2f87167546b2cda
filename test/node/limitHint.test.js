'use strict';
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');

/**
 * Get Many's "more exist than the limit" hint: n8n 2.40's editor shows its own "Limit of N items
 * reached" when the output has exactly Limit items (Limit a number), so ours is added only otherwise.
 */
let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	for (let n = 1; n <= 5; n++)
		store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: `m${n}` });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000002
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000003
});
afterEach(() => sandbox.stop());

const getMany = (parameters, extra = {}) =>
	runMessagingNode({
		parameters: { resource: 'message', operation: 'getAll', ...parameters },
		credentials,
		typeVersion: 2,
		...extra,
	});
const messages = (hints) => hints.map((h) => h.message);

describe('Get Many’s limit hint', () => {
	test('one item, Limit 3 of 5: no hint of ours (n8n shows "Limit of 3 items reached")', async () => {
		const { items, hints } = await getMany({ limit: 3 });
		expect(items).toHaveLength(3);
		expect(hints).toEqual([]);
	});

	test('two items, Limit 3 each: output 6, so ours names each item', async () => {
		const { items, hints } = await getMany({ limit: 3 }, { input: [{}, {}] });
		expect(items).toHaveLength(6);
		expect(messages(hints)).toEqual([
			'More messages exist than the limit of 3 [item 0]. Turn on Return All, or raise Limit, to get them.',
			'More messages exist than the limit of 3 [item 1]. Turn on Return All, or raise Limit, to get them.',
		]);
		expect(hints[0]).toMatchObject({ type: 'info', location: 'outputPane' });
	});

	test('Limit as an expression: n8n does not compare it, ours shows', async () => {
		const { items, hints } = await getMany({ limit: '={{ 1 + 2 }}' });
		expect(items).toHaveLength(3);
		expect(messages(hints)).toEqual([
			'More messages exist than the limit of 3. Turn on Return All, or raise Limit, to get them.',
		]);
	});

	test('conversations, Limit 2 of 3 with one item: no hint of ours', async () => {
		const { items, hints } = await runMessagingNode({
			parameters: { resource: 'conversation', operation: 'getAll', limit: 2 },
			credentials,
			typeVersion: 2,
		});
		expect(items).toHaveLength(2);
		expect(hints).toEqual([]);
	});

	test('an error item on the error output leaves Limit items on main: n8n’s hint, not ours', async () => {
		const { outputs, hints } = await getMany(
			{ limit: 3, filters: { conversationId: byId('={{ $json.c }}') } },
			{ input: [{ c: 'conv_00000001' }, { c: 'conv_missing' }], onError: 'continueErrorOutput' },
		);
		expect([outputs[0].length, outputs[1].length]).toEqual([3, 1]);
		expect(hints).toEqual([]);
	});

	test('the same error item kept on main (Continue): 4 items, ours shows', async () => {
		const { items, hints } = await getMany(
			{ limit: 3, filters: { conversationId: byId('={{ $json.c }}') } },
			{ input: [{ c: 'conv_00000001' }, { c: 'conv_missing' }], continueOnFail: true },
		);
		expect(items).toHaveLength(4);
		expect(messages(hints)).toEqual([
			'More messages exist than the limit of 3 [item 0]. Turn on Return All, or raise Limit, to get them.',
		]);
	});

	test('as an AI agent’s tool (output not on main), ours shows', async () => {
		const { items, hints } = await getMany(
			{ limit: 3 },
			{ type: 'n8n-nodes-messaging.messagingTool' },
		);
		expect(items).toHaveLength(3);
		expect(messages(hints)).toEqual([
			'More messages exist than the limit of 3. Turn on Return All, or raise Limit, to get them.',
		]);
	});
});
