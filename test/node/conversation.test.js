'use strict';
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId, wire } = require('../harness/sandbox');

let sandbox;
let credentials;
async function setup(options = {}) {
	({ sandbox, credentials } = await startSandbox({ seed: 'none', ...options }));
	const { store } = sandbox;
	for (const id of ['ct_ann', 'ct_bob']) store.addContact({ id });
	store.addGroup({ id: 'grp_team' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.createConversation({ group_id: 'grp_team' }); // conv_00000002
	store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: 'hi' }); // msg_00000001
	sandbox.clearRequests();
}
afterEach(() => sandbox.stop());

const run = (parameters, extra = {}) =>
	runMessagingNode({
		parameters: { resource: 'conversation', ...parameters },
		credentials,
		...extra,
	});

describe('Conversation', () => {
	beforeEach(() => setup());

	test('Create with a contact, and with a group', async () => {
		let { items } = await run({ operation: 'create', createWith: 'contact', contactId: 'ct_bob' });
		expect(items[0].json).toMatchObject({
			id: 'conv_00000003',
			contact_id: 'ct_bob',
			group_id: null,
			is_pinned: false,
			is_muted: false,
			archived_at: null,
			pinned_message_id: null,
		});
		({ items } = await run({ operation: 'create', createWith: 'group', groupId: 'grp_team' }));
		expect(items[0].json).toMatchObject({ group_id: 'grp_team' });
		expect(wire(sandbox)).toEqual([
			{ method: 'POST', url: '/v1/conversations', body: 'contact_id=ct_bob' },
			{ method: 'POST', url: '/v1/conversations', body: 'group_id=grp_team' },
		]);
	});

	test('Get and Delete (the delete cascades to the messages)', async () => {
		let { items } = await run({ operation: 'get', conversationId: byId('conv_00000001') });
		expect(items[0].json.id).toBe('conv_00000001');
		({ items } = await run({ operation: 'delete', conversationId: byId('conv_00000001') }));
		expect(items[0].json).toEqual({ id: 'conv_00000001', deleted: true });
		expect(wire(sandbox)).toEqual([
			{ method: 'GET', url: '/v1/conversations/conv_00000001', body: '' },
			{ method: 'DELETE', url: '/v1/conversations/conv_00000001', body: '' },
		]);
		expect(sandbox.store.messages.size).toBe(0);
	});

	test('Update: every field on the wire, booleans as true/false, the date in the service unit', async () => {
		const { items, error } = await run({
			operation: 'update',
			conversationId: byId('conv_00000001'),
			updateFields: {
				pinnedMessageId: 'msg_00000001',
				isPinned: true,
				isMuted: false,
				archivedAt: '2023-11-14T22:13:20Z',
			},
		});
		expect(error).toBeUndefined();
		const puts = wire(sandbox).filter((r) => r.method === 'PUT');
		expect(puts).toEqual([
			{
				method: 'PUT',
				url: '/v1/conversations/conv_00000001',
				body: 'pinned_message_id=msg_00000001&is_pinned=true&is_muted=false&archived_at=1700000000',
			},
		]);
		expect(items[0].json).toMatchObject({
			pinned_message_id: 'msg_00000001',
			is_pinned: true,
			is_muted: false,
			archived_at: 1_700_000_000,
		});
	});

	test('Update: an empty Pinned Message ID unpins the message (sent as an empty value)', async () => {
		sandbox.store.updateConversation('conv_00000001', { pinned_message_id: 'msg_00000001' });
		const { items } = await run({
			operation: 'update',
			conversationId: byId('conv_00000001'),
			updateFields: { pinnedMessageId: '' },
		});
		expect(wire(sandbox)).toEqual([
			{ method: 'PUT', url: '/v1/conversations/conv_00000001', body: 'pinned_message_id=' },
		]);
		expect(items[0].json.pinned_message_id).toBeNull();
	});

	test.each([
		['pin', 'is_pinned=true', { is_pinned: true }],
		['unpin', 'is_pinned=false', { is_pinned: false }],
		['mute', 'is_muted=true', { is_muted: true }],
		['unmute', 'is_muted=false', { is_muted: false }],
		['unarchive', 'archived_at=', { archived_at: null }],
	])('%s sends %s', async (operation, body, expected) => {
		const { items } = await run({ operation, conversationId: byId('conv_00000001') });
		expect(wire(sandbox)).toEqual([
			{ method: 'PUT', url: '/v1/conversations/conv_00000001', body },
		]);
		expect(items[0].json).toMatchObject(expected);
	});

	test('Archive sets archived_at to now in seconds (unit read off the service once per run)', async () => {
		const before = Math.floor(Date.now() / 1000);
		const { items } = await run(
			{ operation: 'archive', conversationId: '={{ $json.id }}' },
			{ input: [{ id: 'conv_00000001' }, { id: 'conv_00000002' }] },
		);
		const after = Math.floor(Date.now() / 1000);
		const urls = wire(sandbox).map((r) => `${r.method} ${r.url}`);
		expect(urls.filter((u) => u.startsWith('GET'))).toEqual(['GET /v1/conversations?limit=1']);
		for (const item of items) {
			expect(item.json.archived_at).toBeGreaterThanOrEqual(before);
			expect(item.json.archived_at).toBeLessThanOrEqual(after);
		}
	});

	test('a service sending timestamps as numeric text: Archive reads the unit off them, Add ISO Timestamps shows them', async () => {
		sandbox.set({ quirks: { timestampsAsStrings: true } });
		const before = Math.floor(Date.now() / 1000);
		const { items, error } = await run({
			operation: 'archive',
			conversationId: byId('conv_00000001'),
			options: { isoTimestamps: true },
		});
		// Before: "Could not tell whether the service counts time in seconds or milliseconds (it has no
		// records yet)", and no *_iso beside a timestamp sent as text.
		expect(error).toBeUndefined();
		const archivedAt = Number(items[0].json.archived_at);
		expect(archivedAt).toBeGreaterThanOrEqual(before);
		expect(archivedAt).toBeLessThan(before + 60);
		expect(items[0].json.archived_at_iso).toBe(new Date(archivedAt * 1000).toISOString());
		expect(items[0].json.created_at_iso).toMatch(/^\d{4}-\d{2}-\d{2}T/);
	});

	test('Get Many: filters on the wire', async () => {
		sandbox.store.updateConversation('conv_00000002', { is_muted: 'true' });
		const { items } = await run({
			operation: 'getAll',
			returnAll: false,
			limit: 10,
			filters: { muted: true, archived: false, groupId: 'grp_team' },
		});
		expect(wire(sandbox)).toEqual([
			{
				method: 'GET',
				url: '/v1/conversations?muted=true&archived=false&group_id=grp_team&limit=10',
				body: '',
			},
		]);
		expect(items.map((i) => i.json.id)).toEqual(['conv_00000002']);
	});
});

describe('Conversation with millisecond timestamps', () => {
	beforeEach(() => setup({ unit: 'ms' }));

	test('Archive writes milliseconds, and ISO copies read them right', async () => {
		const before = Date.now();
		const { items } = await run({
			operation: 'archive',
			conversationId: byId('conv_00000001'),
			options: { isoTimestamps: true },
		});
		expect(items[0].json.archived_at).toBeGreaterThanOrEqual(before);
		expect(Date.parse(items[0].json.archived_at_iso)).toBe(items[0].json.archived_at);
	});

	test('a unit fixed on the credential is used without asking the service', async () => {
		credentials.timestampUnit = 'milliseconds';
		await run({ operation: 'archive', conversationId: byId('conv_00000001') });
		expect(wire(sandbox).map((r) => r.method)).toEqual(['PUT']);
	});
});
