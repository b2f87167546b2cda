'use strict';
/** Extra Body Fields and Extra Query Parameters: the bytes on the wire, and bad rows refused before anything is sent. */
const { runMessagingNode } = require('../harness/n8n');
const { startWithAnn, byId, wire } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startWithAnn());
	sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: 'hi' }); // msg_00000001
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const rows = (...pairs) => ({ field: pairs.map(([name, value]) => ({ name, value })) });
const run = (parameters) => runMessagingNode({ parameters, credentials });
const send = (extraBodyFields) =>
	run({
		resource: 'message',
		operation: 'send',
		conversationId: byId('conv_00000001'),
		text: 'answer',
		extraBodyFields,
	});

test('Send: extra fields after the node’s own, JSON values in bracket form, text as text', async () => {
	const fields = (note) =>
		rows(
			['reply_to', 'msg_00000001'],
			['mentions', '["ann","bob"]'],
			['format', '{"type":"markdown","safe":true}'],
			['note', note],
		);
	const { error } = await send(fields(' [not json'));
	expect(error?.message).toMatch(
		/Extra Body Fields "note" \(row 4\): the value starts like JSON but is not valid JSON/,
	);
	expect(wire(sandbox)).toEqual([]);

	const ok = await send(fields('a [b] & c'));
	expect(ok.error).toBeUndefined();
	expect(wire(sandbox)).toEqual([
		{
			method: 'POST',
			url: '/v1/messages',
			body: 'conversation_id=conv_00000001&message=answer&reply_to=msg_00000001&mentions[]=ann&mentions[]=bob&format[type]=markdown&format[safe]=true&note=a%20%5Bb%5D%20%26%20c',
		},
	]);
});

test.each([
	[
		'a field the node sets',
		rows(['message', 'x']),
		/Extra Body Fields "message" \(row 1\) is set by the node itself/,
	],
	['an empty name', rows(['reply_to', '1'], [' ', 'x']), /Extra Body Fields row 2 has no Name/],
	[
		'a name given twice',
		rows(['thread_id', '1'], ['thread_id', '2']),
		/Extra Body Fields "thread_id" is given twice/,
	],
	[
		'brackets in a name',
		rows(['mentions[0]', 'ann']),
		/a name has no brackets; give nested fields as a JSON value/,
	],
])(
	'Send refuses %s, naming the field, and sends nothing',
	async (_name, extraBodyFields, message) => {
		const { error } = await run({
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'answer',
			extraBodyFields,
		});
		expect(error?.message).toMatch(message);
		expect(wire(sandbox)).toEqual([]);
	},
);

test('Update (message), Create and Update (conversation) send their extra fields; an Update with only extra fields is an update', async () => {
	await run({
		resource: 'message',
		operation: 'update',
		messageId: byId('msg_00000001'),
		updateFields: {},
		extraBodyFields: rows(['format', 'markdown']),
	});
	await run({
		resource: 'conversation',
		operation: 'create',
		createWith: 'contact',
		contactId: 'ct_ann',
		extraBodyFields: rows(['topic', 'billing']),
	});
	await run({
		resource: 'conversation',
		operation: 'update',
		conversationId: byId('conv_00000001'),
		updateFields: { isMuted: true },
		extraBodyFields: rows(['mute_until', '1700000000']),
	});
	const refused = await run({
		resource: 'conversation',
		operation: 'update',
		conversationId: byId('conv_00000001'),
		updateFields: {},
		extraBodyFields: rows(['archived_at', '']),
	});
	expect(refused.error?.message).toMatch(/"archived_at" \(row 1\) is set by the node itself/);
	expect(wire(sandbox).map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
		'PUT /v1/messages/msg_00000001 format=markdown',
		'POST /v1/conversations contact_id=ct_ann&topic=billing',
		'PUT /v1/conversations/conv_00000001 is_muted=true&mute_until=1700000000',
	]);
});

test('Get Many (both): extra query parameters on every page; the node’s own parameters cannot be replaced', async () => {
	for (let i = 0; i < 3; i++)
		sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: `m${i}` });
	sandbox.set({ maxPageSize: 2 });
	sandbox.clearRequests();
	const { items, error } = await run({
		resource: 'message',
		operation: 'getAll',
		returnAll: true,
		filters: {},
		simplify: false,
		extraQueryParameters: rows(['thread_id', 't 1'], ['kinds', '["text","file"]']),
	});
	expect(error).toBeUndefined();
	expect(items).toHaveLength(4);
	const urls = wire(sandbox).map((r) => r.url);
	expect(urls).toHaveLength(2);
	expect(urls[1]).toContain('starting_after=');
	for (const url of urls) expect(url).toContain('thread_id=t%201&kinds[]=text&kinds[]=file');

	sandbox.clearRequests();
	const refused = await run({
		resource: 'conversation',
		operation: 'getAll',
		returnAll: true,
		filters: {},
		extraQueryParameters: rows(['starting_after', 'conv_x']),
	});
	expect(refused.error?.message).toMatch(
		/Extra Query Parameters "starting_after" \(row 1\) is set by the node itself/,
	);
	expect(wire(sandbox)).toEqual([]);
});
