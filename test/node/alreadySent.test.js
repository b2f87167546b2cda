'use strict';
/** Send's duplicate check (Skip If Already Sent): a redelivered item answered once, and what it costs. */
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const customerSays = (text, createdAt) =>
	sandbox.store.sendMessage(
		'ct_ann',
		{ conversation_id: 'conv_00000001', message: text },
		{ createdAt },
	);
const reply = (input, extra = {}) =>
	runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'We are on it',
			...extra,
		},
		input,
		credentials,
		typeVersion: 2,
	});
const requests = () => sandbox.requests.map((r) => `${r.method} ${r.path}`);
const sent = () =>
	sandbox.store
		.listMessages({ conversation_id: 'conv_00000001' })
		.filter((m) => m.message === 'We are on it');

test('a redelivered item whose reply was sent is not answered again: the existing reply comes out, marked', async () => {
	const asked = customerSays('help please');
	const first = await reply([{ ...asked, redelivery: true, attempt: 2 }]);
	expect(first.error).toBeUndefined();
	expect(first.items[0].json).not.toHaveProperty('alreadySent');
	expect(requests()).toEqual(['GET /v1/messages', 'POST /v1/messages']); // the check, then the send
	sandbox.clearRequests();
	const again = await reply([{ ...asked, redelivery: true, attempt: 3 }]);
	expect(again.items[0].json).toMatchObject({
		id: first.items[0].json.id,
		text: 'We are on it', // version 2: Simplify's record, the mark kept
		alreadySent: true,
	});
	expect(requests()).toEqual(['GET /v1/messages']); // one list request, no send
	expect(sent()).toHaveLength(1);
});

test('first deliveries cost nothing: no request before the send unless "Always"', async () => {
	const asked = customerSays('help please');
	await reply([asked]);
	expect(requests()).toEqual(['POST /v1/messages']);
	sandbox.clearRequests();
	const always = await reply([asked], { skipIfAlreadySent: 'always' });
	expect(always.items[0].json.alreadySent).toBe(true);
	expect(requests()).toEqual(['GET /v1/messages']);
});

test('the same text before the answered message, or from the customer, does not count; "Never" always sends', async () => {
	await reply([{}]); // an earlier identical reply, to an earlier message
	const later = Math.floor(Date.now() / 1000) + 60; // the service's timestamps are in seconds
	const asked = customerSays('help again', later);
	customerSays('We are on it', later + 1); // the customer quoting it
	const result = await reply([{ ...asked, redelivery: true }]);
	expect(result.items[0].json).not.toHaveProperty('alreadySent');
	expect(sent().filter((m) => m.contact !== 'ct_ann')).toHaveLength(2);
	sandbox.clearRequests();
	await reply([{ ...asked, redelivery: true }], { skipIfAlreadySent: 'never' });
	expect(requests()).toEqual(['POST /v1/messages']);
});

test('version 1 keeps sending every item: its default is Never, a redelivered item is sent without a check', async () => {
	const asked = customerSays('still there?');
	const run = await runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'We are on it',
		},
		input: [{ ...asked, redelivery: true, attempt: 2 }],
		credentials,
		typeVersion: 1,
	});
	expect(run.error).toBeUndefined();
	expect(requests()).toEqual(['POST /v1/messages']);
});
