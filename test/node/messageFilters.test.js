'use strict';
/**
 * Message → Get Many's filters, through n8n-core against the sandbox: which pages are asked for (the early
 * stop where the list's order allows it), the items output, and bad input refused before any request.
 */
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, byId, wire } = require('../harness/sandbox');
const { startVariantService } = require('../trigger/variantService');

/** 2025-06-15T15:06:40Z: the newest message of the history. */
const T = 1_750_000_000;
const iso = (seconds) => new Date(seconds * 1000).toISOString();
const id = (i) => `msg_${String(i + 1).padStart(8, '0')}`;

let sandbox;
let credentials;
let variant;
afterEach(async () => {
	await sandbox?.stop();
	await variant?.stop();
	sandbox = variant = undefined;
});

/**
 * 1,000 messages a minute apart in conv_00000001 (i = 0 the oldest, msg_00000001), in `unit`: every third
 * from bob, the rest from ann; every fifth says "Refund"; the last ten unread.
 */
async function setup({ unit = 's', order = 'newest_first', credentialUnit = 'auto' } = {}) {
	({ sandbox, credentials } = await startSandbox({
		seed: 'none',
		unit,
		order,
		credentials: { timestampUnit: credentialUnit },
	}));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_bob', username: 'bob' });
	store.createConversation({ contact_id: 'ct_ann' });
	const scale = unit === 'ms' ? 1000 : 1;
	for (let i = 0; i < 1000; i++) {
		const created = (T - (999 - i) * 60) * scale;
		store.messages.set(id(i), {
			id: id(i),
			conversation_id: 'conv_00000001',
			contact: i % 3 === 0 ? 'ct_bob' : 'ct_ann',
			message: i % 5 === 0 ? `Refund request ${i}` : `note ${i}`,
			reactions: {},
			attachments: [],
			read_at: i < 990 ? created + 1 : null,
			created_at: created,
			updated_at: null,
		});
	}
	store.counters.msg = 1000;
	sandbox.clearRequests();
}

const getMany = (filters, extra = {}) =>
	runMessagingNode({
		parameters: { resource: 'message', operation: 'getAll', returnAll: true, filters, ...extra },
		credentials,
	});
const ids = (items) => items.map((item) => item.json.id);
const urls = () => wire(sandbox).map((r) => r.url);
/** Ids of messages i in [from, to), in the list's order. */
const range = (from, to, order) => {
	const list = Array.from({ length: to - from }, (_, k) => id(from + k));
	return order === 'newest_first' ? list.reverse() : list;
};

describe.each([
	['seconds, unit detected', { unit: 's' }],
	['milliseconds, unit detected', { unit: 'ms' }],
	['milliseconds, set on the credential', { unit: 'ms', credentialUnit: 'milliseconds' }],
])('Created After / Before on 1,000 messages (%s)', (_name, options) => {
	test('newest first: Created After reads 2 pages of 10, not all of them; Created Before reads all', async () => {
		await setup(options);
		const after = await getMany({ createdAfter: iso(T - 29 * 60) });
		expect(after.error).toBeUndefined();
		expect(ids(after.items)).toEqual(range(970, 1000, 'newest_first'));
		expect(urls()).toEqual([
			'/v1/messages?limit=100',
			`/v1/messages?limit=100&starting_after=${id(900)}`,
		]);

		sandbox.clearRequests();
		const before = await getMany({ createdBefore: iso(T - 969 * 60) });
		expect(ids(before.items)).toEqual(range(0, 30, 'newest_first'));
		expect(urls()).toHaveLength(10);
	});

	test('oldest first: Created Before reads 2 pages; Created After reads all; both bounds a window', async () => {
		await setup({ ...options, order: 'oldest_first' });
		const before = await getMany({ createdBefore: iso(T - 969 * 60) });
		expect(ids(before.items)).toEqual(range(0, 30, 'oldest_first'));
		expect(urls()).toEqual([
			'/v1/messages?limit=100',
			`/v1/messages?limit=100&starting_after=${id(99)}`,
		]);

		sandbox.clearRequests();
		const after = await getMany({ createdAfter: iso(T - 29 * 60) });
		expect(ids(after.items)).toEqual(range(970, 1000, 'oldest_first'));
		expect(urls()).toHaveLength(10);

		sandbox.clearRequests();
		const window = await getMany({
			createdAfter: iso(T - 500 * 60),
			createdBefore: iso(T - 490 * 60),
		});
		expect(ids(window.items)).toEqual(range(499, 509, 'oldest_first')); // [after, before)
	});
});

test('the cost against Return All + a Filter node: 2 requests instead of 10 for the last 30 minutes', async () => {
	await setup();
	const all = await getMany({});
	expect(all.items).toHaveLength(1000);
	expect(urls()).toHaveLength(10);
	sandbox.clearRequests();
	// An n8n DateTime from an expression, as {{ $now.minus(…) }} gives it.
	const since = await getMany({ createdAfter: `={{ DateTime.fromSeconds(${T - 29 * 60}) }}` });
	expect(since.items).toHaveLength(30);
	expect(urls()).toHaveLength(2);
});

test('From, Unread Only and Text Contains together; the Limit counts matching messages', async () => {
	await setup();
	const { items, hints, error } = await getMany(
		{ from: '@bob, ct_nobody', textContains: 'REFUND', conversationId: byId('conv_00000001') },
		{ returnAll: false, limit: 5 },
	);
	expect(error).toBeUndefined();
	// bob: i % 3 = 0; Refund: i % 5 = 0; newest first: 990, 975, 960, 945, 930.
	expect(ids(items)).toEqual([990, 975, 960, 945, 930].map(id));
	expect(urls()).toEqual(['/v1/messages?conversation_id=conv_00000001&limit=100']);
	// One item with Limit 5 and 5 out: n8n's own "Limit of 5 items reached" hint says it, so the node adds none.
	expect(hints.map((h) => h.message)).toEqual([]);

	sandbox.clearRequests();
	const unread = await getMany({ unreadOnly: true, from: 'ct_bob' });
	expect(ids(unread.items)).toEqual([999, 996, 993, 990].map(id));
	// A plain entry is an ID only: "ann" is ann's username, not her ID.
	const byName = await getMany({ from: 'ann', unreadOnly: true });
	expect(byName.items).toEqual([]);
	const off = await getMany({ unreadOnly: false, createdAfter: iso(T - 60) });
	expect(ids(off.items)).toEqual([999, 998].map(id));
});

test('a conversation whose messages all fail the filters is not read again (its list was not empty)', async () => {
	await setup();
	const { items, error } = await getMany({
		conversationId: byId('conv_00000001'),
		textContains: 'no such text',
	});
	expect(error).toBeUndefined();
	expect(items).toEqual([]);
	expect(urls().every((url) => url.startsWith('/v1/messages?'))).toBe(true);
});

test('a newest-first list with one late message on top (sorted by insertion) is read to its end: no record lost', async () => {
	variant = await startVariantService({ sortBy: 'insertion' });
	credentials = variant.credentials;
	variant.addConversation();
	for (let i = 0; i < 250; i++)
		variant.addMessage({ text: `m${i}`, createdMs: (T - (249 - i) * 60) * 1000 });
	variant.addMessage({ text: 'bridged late', createdMs: (T - 10_000) * 1000 });
	const run = () => getMany({ createdAfter: iso(T - 29 * 60) });
	const late = await run();
	expect(late.items.map((item) => item.json.message)).toEqual(
		Array.from({ length: 30 }, (_, k) => `m${249 - k}`),
	);
	expect(variant.messageRequests()).toHaveLength(3);

	variant.requests.length = 0;
	variant.messages.pop(); // without the late message the order is unanimous: 2 pages
	const ordered = await run();
	expect(ordered.items).toHaveLength(30);
	expect(variant.messageRequests()).toHaveLength(2);
});

describe('bad input: an error naming the field and the item, nothing sent', () => {
	test.each([
		[{ createdAfter: 'yesterday' }, /^Created After is not a date: yesterday \(use ISO 8601/],
		[{ createdBefore: '2025-02-30' }, /^Created Before is not a valid date: 2025-02-30/],
		[
			{ createdAfter: '2025-03-06T00:00:00Z', createdBefore: '2025-03-05T00:00:00Z' },
			/^Created After \(2025-03-06T00:00:00Z\) must be earlier than Created Before \(2025-03-05T00:00:00Z\): no messages could match/,
		],
		[{ from: 'ct_ann, @' }, /^From has "@" without a username after it/],
		[{ from: 'ct_ann,,@bob' }, /^From has an empty entry/],
		[{ textContains: '={{ { a: 1 } }}' }, /^Text Contains must be text, not an object/],
	])('%j', async (filters, message) => {
		await setup();
		const { error } = await runMessagingNode({
			parameters: { resource: 'message', operation: 'getAll', returnAll: true, filters },
			input: [{}, {}],
			credentials,
		});
		expect(error?.message).toMatch(message);
		expect(error?.message).toMatch(/\[item 0\]$/);
		expect(wire(sandbox)).toEqual([]);
	});
});
