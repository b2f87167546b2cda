'use strict';
/**
 * A careless user and a service that answers oddly: input of the wrong kind is refused before any
 * request, and answers that are not what the call returns are errors, never silent results or writes.
 */
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId, TOKEN } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	sandbox.store.addContact({ id: 'ct_ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: 'hi' }); // msg_00000001
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const run = (parameters, extra = {}) => runMessagingNode({ parameters, credentials, ...extra });
const writes = () => sandbox.requests.filter((r) => r.method !== 'GET');
/** Add or Remove Reaction on msg_00000001. */
const changeReaction = (operation, reaction, reactor) =>
	run({ resource: 'message', operation, messageId: byId('msg_00000001'), reaction, reactor });

describe('input of the wrong kind is an error naming the field and the item, before any request', () => {
	const input = [{ obj: { id: 'm1' }, list: ['m1', 'm2'], count: 5, flag: true }];
	test.each([
		[
			'an object as an id',
			{ resource: 'message', operation: 'get', messageId: byId('={{ $json.obj }}') },
			'Message must be text, not an object',
		],
		[
			'a list as an id',
			{ resource: 'message', operation: 'delete', messageId: byId('={{ $json.list }}') },
			'Message must be text, not a list',
		],
		[
			'an object as the text',
			{
				resource: 'message',
				operation: 'send',
				conversationId: byId('conv_00000001'),
				text: '={{ $json.obj }}',
			},
			'Text must be text, not an object',
		],
		[
			'a list as the edited text',
			{
				resource: 'message',
				operation: 'update',
				messageId: byId('msg_00000001'),
				updateFields: { text: '={{ $json.list }}' },
			},
			'Text must be text, not a list',
		],
		[
			'a boolean as a contact',
			{
				resource: 'conversation',
				operation: 'create',
				createWith: 'contact',
				contactId: '={{ $json.flag }}',
			},
			'Contact ID must be text, not a boolean',
		],
		[
			'an object as a reaction name',
			{
				resource: 'message',
				operation: 'addReaction',
				messageId: byId('msg_00000001'),
				reaction: '={{ $json.obj }}',
				reactor: 'ann',
			},
			'Reaction must be text, not an object',
		],
		[
			'an empty reactor',
			{
				resource: 'message',
				operation: 'removeReaction',
				messageId: byId('msg_00000001'),
				reaction: 'like',
				reactor: ' ',
			},
			'Reactor is empty',
		],
		[
			'an empty reaction name in JSON',
			{
				resource: 'message',
				operation: 'update',
				messageId: byId('msg_00000001'),
				updateFields: { reactionsJson: '{"": ["ann"]}' },
			},
			'Reactions (JSON) has a reaction with an empty name',
		],
		[
			'an empty reactor in JSON',
			{
				resource: 'message',
				operation: 'update',
				messageId: byId('msg_00000001'),
				updateFields: { reactionsJson: '{"like": [""]}' },
			},
			'Reactions (JSON) "like" has an empty reactor name',
		],
		[
			'a loose date',
			{
				resource: 'conversation',
				operation: 'update',
				conversationId: byId('conv_00000001'),
				updateFields: { archivedAt: 'March 5' },
			},
			'Archived At is not a date: March 5 (use ISO 8601, e.g. 2025-03-05T14:30:00Z)',
		],
		[
			'an impossible date',
			{
				resource: 'conversation',
				operation: 'update',
				conversationId: byId('conv_00000001'),
				updateFields: { archivedAt: '2025-02-30' },
			},
			'Archived At is not a valid date: 2025-02-30',
		],
		[
			'a limit that is not a number',
			{ resource: 'message', operation: 'getAll', returnAll: false, limit: '={{ "five" }}' },
			'Limit must be a whole number of at least 1',
		],
	])('%s', async (_name, parameters, message) => {
		const { error, items } = await run(parameters, { input });
		expect(error?.message).toBe(message);
		expect(items).toEqual([]);
		expect(writes()).toEqual([]);
		expect(sandbox.requests.filter((r) => !r.query.includes('limit=1'))).toEqual([]);
	});

	test('numbers are fine as ids, and a numeric text Limit from an expression is accepted', async () => {
		let { error, items } = await run({
			resource: 'message',
			operation: 'getAll',
			returnAll: false,
			limit: '={{ "5" }}',
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(sandbox.requests[0].query).toBe('?limit=5');
		sandbox.clearRequests();
		({ error } = await run(
			{ resource: 'message', operation: 'get', messageId: byId('={{ $json.count }}') },
			{ input },
		));
		expect(error.message).toMatch(/^Not found/);
		expect(sandbox.requests[0].path).toBe('/v1/messages/5');
	});

	test('a date without an offset is read in the workflow timezone', async () => {
		sandbox.store.createConversation({ contact_id: 'ct_ann' });
		const { error, items } = await run({
			resource: 'conversation',
			operation: 'update',
			conversationId: byId('conv_00000001'),
			updateFields: { archivedAt: '2025-03-05T10:00:00' },
		});
		expect(error).toBeUndefined();
		// The harness's workflow has no timezone setting: n8n's default, America/New_York (UTC-5 in March).
		expect(items[0].json.archived_at).toBe(Date.UTC(2025, 2, 5, 15) / 1000);
	});

	test('Parallel Requests above its maximum is capped at run time', async () => {
		// Long enough that every started request is still in flight on a loaded machine (100 ms was not once,
		// with another suite running beside it).
		sandbox.set({ latencyMs: 1000 });
		const many = Array.from({ length: 80 }, () => ({}));
		const { error } = await run(
			{
				resource: 'message',
				operation: 'get',
				messageId: byId('msg_00000001'),
				options: { parallelRequests: '={{ 1000 }}' },
			},
			{ input: many },
		);
		expect(error).toBeUndefined();
		expect(sandbox.stats.peakInFlight).toBe(64);
	});
});

describe('answers that are not what the call returns are errors, never silent results', () => {
	test.each([
		['no data', '{"has_more": false}'],
		['data null', '{"has_more": false, "data": null}'],
		['a bare array', '[{"id": "msg_00000001"}]'],
	])('a list answer with %s', async (_name, body) => {
		sandbox.failNext({ status: 200, html: body });
		const { error, items } = await run({
			resource: 'message',
			operation: 'getAll',
			returnAll: true,
		});
		expect(error.message).toMatch(
			/^The Messaging service answered (a list without a "data" array|a bare array)/,
		);
		expect(error.description).toContain('GET /v1/messages returned 200');
		expect(items).toEqual([]);
	});

	test.each([
		['an empty object', '{}'],
		['a list', '{"data": []}'],
	])('a Send answered with %s is an error, not a success', async (_name, body) => {
		sandbox.failNext({ status: 200, html: body });
		const { error } = await run({
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'x',
		});
		expect(error.message).toBe(
			'The Messaging service answered something that is not a record (no "id")',
		);
	});

	test('Add Reaction whose read has no reactions list writes nothing', async () => {
		sandbox.failNext({ status: 200, html: '{"id": "msg_00000001", "message": "hi"}' });
		const { error } = await changeReaction('addReaction', 'like', 'ann');
		expect(error.message).toContain('without its "reactions" list, so nothing was written');
		expect(writes()).toEqual([]);
	});

	test("Add Reaction reads the current set when the service sends it as one object (as the spec's update answer does), and keeps it", async () => {
		sandbox.failNext({
			status: 200,
			html: '{"id": "msg_00000001", "message": "hi", "reactions": {"like": ["bob"]}}',
		});
		const { error } = await changeReaction('addReaction', 'like', 'ann');
		expect(error).toBeUndefined(); // before: "without its reactions list, so nothing was written"
		expect(writes().map((r) => decodeURIComponent(r.body))).toEqual([
			'reactions[like][]=bob&reactions[like][]=ann',
		]);
	});

	test.each(['constructor', '__proto__', 'toString'])(
		'a reaction named %s is a reaction like any other (not a member of every object)',
		async (name) => {
			for (const operation of ['addReaction', 'addReaction', 'removeReaction']) {
				const reactor =
					operation === 'removeReaction' ? 'ann' : writes().length === 0 ? 'ann' : 'bob';
				const { error } = await changeReaction(operation, name, reactor);
				// Before: "(map[name] ?? []) is not iterable", naming neither item nor field.
				expect(error).toBeUndefined();
			}
			expect(writes().map((r) => decodeURIComponent(r.body))).toEqual([
				`reactions[${name}][]=ann`,
				`reactions[${name}][]=ann&reactions[${name}][]=bob`,
				`reactions[${name}][]=bob`,
			]);
		},
	);

	test('an Update row naming a reaction without reactors is an error naming the item and the field, not a wiped set', async () => {
		const { error } = await run({
			resource: 'message',
			operation: 'update',
			messageId: byId('msg_00000001'),
			updateFields: { reactions: { reaction: [{ name: 'like', reactors: ' , ' }] } },
		});
		expect(error.message).toBe(
			'Reactions row 1 ("like") has no reactors; to remove a reaction, leave its row out',
		);
		expect(writes()).toEqual([]); // before: PUT reactions= (every reaction removed)
	});

	test('a DELETE answered 200 in plain text is done', async () => {
		sandbox.failNext({ status: 200, html: 'OK' });
		const { error, items } = await run({
			resource: 'message',
			operation: 'delete',
			messageId: byId('msg_00000001'),
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({ id: 'msg_00000001', deleted: true });
	});

	test('a Send answered 500 says the message may have been stored', async () => {
		sandbox.failNext({ status: 500 });
		const { error } = await run({
			resource: 'message',
			operation: 'send',
			conversationId: byId('conv_00000001'),
			text: 'x',
		});
		expect(error.message).toMatch(/^The Messaging service failed \(500\)/);
		expect(error.description).toContain('may or may not have processed it, so it was not repeated');
		expect(sandbox.requests).toHaveLength(1);
	});

	test('a service that echoes the Authorization header in its error text: the token is redacted everywhere', async () => {
		sandbox.failNext({
			status: 400,
			html: `{"error": {"message": "bad request; you sent Authorization: Bearer ${TOKEN}"}}`,
		});
		const { error } = await run({
			resource: 'message',
			operation: 'get',
			messageId: byId('msg_00000001'),
		});
		expect(error.message).toContain('[redacted]');
		const everything = JSON.stringify({
			...error,
			message: error.message,
			description: error.description,
			stack: error.stack,
			cause: error.cause,
		});
		expect(everything).not.toContain(TOKEN);
		sandbox.failNext({ status: 400, html: `token=${TOKEN}` });
		const { items } = await run(
			{ resource: 'message', operation: 'get', messageId: byId('msg_00000001') },
			{ continueOnFail: true },
		);
		expect(JSON.stringify(items)).not.toContain(TOKEN);
		expect(items[0].json.error).toContain('[redacted]');
	});
});
