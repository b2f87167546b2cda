'use strict';
/** Text for chat on Send and Update: Markdown sent as plain text, long texts sent as parts, redeliveries. */
const { runMessagingNode } = require('../harness/n8n');
const { startWithAnn, byId, wire } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startWithAnn());
});
afterEach(() => sandbox.stop());

const ANSWER =
	'## Your order\n\nIt **shipped** today. Track it [here](https://t.example/1).\n\n- box 1\n- box 2';
// Split at 40: after the heading's paragraph break would leave a part too short; after the sentences instead.
const PARTS = [
	'Your order\n\nIt shipped today.',
	'Track it here (https://t.example/1).',
	'• box 1\n• box 2',
];
const send = (options, input, extra = {}) =>
	runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: ANSWER,
			options,
			...extra,
		},
		credentials,
		typeVersion: 2,
		...(input ? { input } : {}),
	});
const sentTexts = () =>
	sandbox.store
		.listMessages({ conversation_id: 'conv_00000001' })
		.filter((m) => m.contact === 'ct_me')
		.map((m) => m.message);

test('Plain Text From Markdown: the text on the wire has no Markdown marks', async () => {
	const { error } = await send({ textFormat: 'plainFromMarkdown' });
	expect(error).toBeUndefined();
	expect(decodeURIComponent(wire(sandbox)[0].body)).toBe(
		'conversation_id=conv_00000001&message=Your order\n\nIt shipped today. Track it here (https://t.example/1).\n\n• box 1\n• box 2',
	);
});

test('As Is (the default) sends the text unchanged', async () => {
	await send({});
	expect(sentTexts()).toEqual([ANSWER]);
});

test('Split Long Text: parts in order, each within the limit, at readable boundaries; the output names every part', async () => {
	const { items, error } = await send({ textFormat: 'plainFromMarkdown', splitAt: 40 });
	expect(error).toBeUndefined();
	expect(sentTexts()).toEqual(PARTS);
	const posts = wire(sandbox).filter((r) => r.method === 'POST');
	expect(posts).toHaveLength(3);
	expect(items).toHaveLength(1);
	expect(items[0].json).toMatchObject({ id: 'msg_00000001', text: PARTS[0] });
	expect(PARTS.every((part) => part.length <= 40)).toBe(true);
	expect(items[0].json.parts).toEqual(['msg_00000001', 'msg_00000002', 'msg_00000003']);
});

test('a text within the limit is one message, with no parts field', async () => {
	const { items } = await send({ splitAt: 4000 });
	expect(sentTexts()).toHaveLength(1);
	expect(items[0].json).not.toHaveProperty('parts');
});

test('a redelivery after a crash between parts sends only the missing parts', async () => {
	const asked = sandbox.store.sendMessage('ct_ann', {
		conversation_id: 'conv_00000001',
		message: 'where is it?',
	});
	const options = { textFormat: 'plainFromMarkdown', splitAt: 40 };
	// The earlier run sent the first part, then n8n crashed.
	sandbox.store.sendMessage('ct_me', { conversation_id: 'conv_00000001', message: PARTS[0] });
	sandbox.clearRequests();
	const { items, error } = await send(options, [{ ...asked, redelivery: true }]);
	expect(error).toBeUndefined();
	expect(sentTexts()).toEqual(PARTS);
	expect(wire(sandbox).filter((r) => r.method === 'POST')).toHaveLength(2);
	expect(items[0].json.parts).toHaveLength(3);
	expect(items[0].json).not.toHaveProperty('alreadySent');
	// And again: everything is there, nothing is sent.
	sandbox.clearRequests();
	const again = await send(options, [{ ...asked, redelivery: true }]);
	expect(wire(sandbox).filter((r) => r.method === 'POST')).toHaveLength(0);
	expect(again.items[0].json).toMatchObject({ alreadySent: true, parts: items[0].json.parts });
});

test('a part that fails says which parts went out before it', async () => {
	sandbox.failNext(
		{ pass: true, match: { method: 'POST' } },
		{ status: 400, message: 'text too long', match: { method: 'POST' } },
	);
	const { error } = await send({ splitAt: 40 }, undefined, {
		text: 'one two three four five six seven eight nine ten eleven twelve',
	});
	expect(error).toBeDefined();
	expect(error.description).toMatch(
		/Part 2 of 2 was not sent; parts sent before it: msg_00000001\./,
	);
});

test.each([0, -3, 2.5])(
	'Split Long Text At %p is refused before anything is sent',
	async (splitAt) => {
		const { error } = await send({ splitAt });
		expect(error?.message).toMatch(
			/Split Long Text At \(Characters\) must be a whole number of at least 1/,
		);
		expect(wire(sandbox)).toEqual([]);
	},
);

test('Update: Plain Text From Markdown on the edited text', async () => {
	sandbox.store.sendMessage('ct_me', { conversation_id: 'conv_00000001', message: '…' });
	sandbox.clearRequests();
	await runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'update',
			messageId: byId('msg_00000001'),
			updateFields: { text: '**Done**: see `log`' },
			options: { textFormat: 'plainFromMarkdown' },
		},
		credentials,
		typeVersion: 2,
	});
	expect(decodeURIComponent(wire(sandbox)[0].body)).toBe('message=Done: see log');
});
