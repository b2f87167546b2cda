'use strict';
/** The "From List" pickers, as the editor calls them: labels, search, paging through the service. */
const { searchList } = require('../harness/n8n');
const { startSandbox } = require('../harness/sandbox');
const { messageLabel } = require('../../dist/nodes/Messaging/methods/listSearch');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	for (let i = 1; i <= 130; i++) {
		sandbox.store.addContact({ id: `ct_${String(i).padStart(3, '0')}`, username: `user${i}` });
		sandbox.store.createConversation({ contact_id: `ct_${String(i).padStart(3, '0')}` });
	}
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000131
	sandbox.store.sendMessage('ct_ann', {
		conversation_id: 'conv_00000131',
		message: 'hello from ann',
	});
	sandbox.store.sendMessage('ct_001', {
		conversation_id: 'conv_00000001',
		message: 'first   contact\nwrites',
	});
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const labels = (result) => result.results.map((r) => r.name);

describe('Conversation picker', () => {
	test('pages of 100 with a cursor token, labelled by who and state', async () => {
		const first = await searchList('searchConversations', { credentials });
		expect(first.results).toHaveLength(100);
		expect(first.paginationToken).toBe(first.results[99].value);
		const second = await searchList('searchConversations', {
			credentials,
			paginationToken: first.paginationToken,
		});
		expect(second.results).toHaveLength(31);
		expect(second.paginationToken).toBeUndefined();
		const all = [...first.results, ...second.results].map((r) => r.value);
		expect(new Set(all).size).toBe(131);
		expect(sandbox.requests.map((r) => r.query)).toEqual([
			'?limit=100',
			`?limit=100&starting_after=${first.paginationToken}`,
		]);
		expect(labels(first)[0]).toBe('Contact ct_ann · conv_00000131'); // newest first
	});

	test('a search reads on past the first page until something matches', async () => {
		sandbox.set({ order: 'oldest_first' }); // ann's conversation is then on the second page
		const found = await searchList('searchConversations', { credentials, filter: 'CT_ANN' });
		expect(labels(found)).toEqual(['Contact ct_ann · conv_00000131']);
		expect(sandbox.requests).toHaveLength(2);
	});

	test('a search with no match stops after its page budget, and says there is more', async () => {
		sandbox.set({ maxPageSize: 10 });
		const found = await searchList('searchConversations', { credentials, filter: 'nobody' });
		expect(found.results).toEqual([]);
		expect(sandbox.requests).toHaveLength(10);
		expect(found.paginationToken).toBeDefined();
	});
});

describe('Message picker', () => {
	test('lists the messages of the chosen conversation, labelled by sender and text', async () => {
		const result = await searchList('searchMessages', {
			credentials,
			parameters: { conversationId: { __rl: true, mode: 'list', value: 'conv_00000001' } },
		});
		expect(result.results).toEqual([
			{ name: 'user1: first contact writes', value: 'msg_00000002' },
		]);
		expect(sandbox.requests[0].query).toBe('?conversation_id=conv_00000001&limit=100');
	});

	test('without a conversation it lists every conversation’s messages; search matches text and id', async () => {
		expect((await searchList('searchMessages', { credentials })).results).toHaveLength(2);
		expect(labels(await searchList('searchMessages', { credentials, filter: 'hello' }))).toEqual([
			'ann: hello from ann',
		]);
		expect(
			(await searchList('searchMessages', { credentials, filter: 'msg_00000002' })).results,
		).toHaveLength(1);
	});

	test('a label is one line, its text cut at 60 between whole characters', () => {
		const label = messageLabel({
			contact: { id: 'ct_eve', username: 'eve\u2028\u202e' },
			message: `${'a'.repeat(59)}${'😀'.repeat(5)}`,
		});
		expect(label).toBe(`eve: ${'a'.repeat(59)}…`);
	});
});
