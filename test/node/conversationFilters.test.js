'use strict';
/**
 * Conversation → Get Many's filters, through n8n-core against the sandbox: pages asked for, items output,
 * the "idle for N days" rule with no Filter node, and bad input refused before any request.
 */
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, wire } = require('../harness/sandbox');

/** 2025-06-15T15:06:40Z: when the newest conversation was created. */
const T = 1_750_000_000;
const DAY = 86_400;
const iso = (seconds) => new Date(seconds * 1000).toISOString();
const id = (i) => `conv_${String(i + 1).padStart(8, '0')}`;

let sandbox;
let credentials;
afterEach(() => sandbox?.stop());

/**
 * 1,000 conversations created an hour apart (i = 0 the oldest), in `unit`. Every fourth never active; the
 * others last active (i * 37) % 90 days before T, in no order the list follows; every tenth archived.
 */
const lastActiveDaysAgo = (i) => (i % 4 === 0 ? null : (i * 37) % 90);
async function setup({ unit = 's', order = 'newest_first', credentialUnit = 'auto' } = {}) {
	({ sandbox, credentials } = await startSandbox({
		seed: 'none',
		unit,
		order,
		credentials: { timestampUnit: credentialUnit },
	}));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	const scale = unit === 'ms' ? 1000 : 1;
	for (let i = 0; i < 1000; i++) {
		const days = lastActiveDaysAgo(i);
		store.conversations.set(id(i), {
			id: id(i),
			contact_id: 'ct_ann',
			group_id: null,
			pinned_message_id: null,
			is_pinned: false,
			is_muted: false,
			last_active_at: days === null ? null : (T - days * DAY) * scale,
			last_opened_at: null,
			created_at: (T - (999 - i) * 3600) * scale,
			archived_at: i % 10 === 0 ? (T - DAY) * scale : null,
		});
	}
	store.counters.conv = 1000;
	sandbox.clearRequests();
}

const getMany = (filters, extra = {}) =>
	runMessagingNode({
		parameters: {
			resource: 'conversation',
			operation: 'getAll',
			returnAll: true,
			filters,
			...extra,
		},
		credentials,
	});
const urls = () => wire(sandbox).map((r) => r.url);
/** The ids `keep` selects, in the list's order. */
const expected = (keep, order = 'newest_first') => {
	const list = Array.from({ length: 1000 }, (_, i) => i).filter(keep);
	return (order === 'newest_first' ? list.reverse() : list).map(id);
};
const ids = (items) => items.map((item) => item.json.id);

describe.each([
	['seconds', { unit: 's' }],
	['milliseconds', { unit: 'ms' }],
	['milliseconds set on the credential', { unit: 'ms', credentialUnit: 'milliseconds' }],
])('1,000 conversations (%s)', (_name, options) => {
	test.each(['newest_first', 'oldest_first'])(
		'%s: idle for 30 days (Last Active Before, Archived off) reads every page, no Filter node needed',
		async (order) => {
			await setup({ ...options, order });
			const { items, error } = await getMany({
				archived: false,
				lastActiveBefore: iso(T - 30 * DAY),
			});
			expect(error).toBeUndefined();
			const idle = (i) =>
				i % 10 !== 0 && lastActiveDaysAgo(i) !== null && lastActiveDaysAgo(i) > 30;
			expect(ids(items)).toEqual(expected(idle, order));
			expect(urls()).toHaveLength(9); // 900 not archived, 100 a page: no early stop on last activity
			expect(urls()[0]).toBe('/v1/conversations?archived=false&limit=100');
		},
	);

	test('Created After stops after 2 pages on a newest-first list; Created Before after 2 on an oldest-first one', async () => {
		await setup(options);
		const after = await getMany({ createdAfter: iso(T - 29 * 3600) });
		expect(ids(after.items)).toEqual(expected((i) => i >= 970));
		expect(urls()).toEqual([
			'/v1/conversations?limit=100',
			`/v1/conversations?limit=100&starting_after=${id(900)}`,
		]);
		await sandbox.stop();

		await setup({ ...options, order: 'oldest_first' });
		const before = await getMany({ createdBefore: iso(T - 969 * 3600) });
		expect(ids(before.items)).toEqual(expected((i) => i < 30, 'oldest_first'));
		expect(urls()).toHaveLength(2);
	});
});

test('Never Active on and off; Last Active After; the cost against Return All + a Filter node', async () => {
	await setup();
	const all = await getMany({});
	expect(all.items).toHaveLength(1000);
	expect(urls()).toHaveLength(10);

	sandbox.clearRequests();
	const never = await getMany({ neverActive: true });
	expect(ids(never.items)).toEqual(expected((i) => i % 4 === 0));
	expect(urls()).toHaveLength(10);
	const active = await getMany({ neverActive: false, createdAfter: iso(T - 9 * 3600) });
	expect(ids(active.items)).toEqual(expected((i) => i >= 990 && i % 4 !== 0));
	const recent = await getMany(
		{ lastActiveAfter: iso(T - 2 * DAY) },
		{ returnAll: false, limit: 3 },
	);
	expect(ids(recent.items)).toEqual(
		expected((i) => lastActiveDaysAgo(i) !== null && lastActiveDaysAgo(i) < 2).slice(0, 3),
	);
});

describe('bad input: an error naming the field and the item, nothing sent', () => {
	test.each([
		[{ lastActiveBefore: 'last month' }, /^Last Active Before is not a date: last month/],
		[{ createdAfter: '2025-13-01' }, /^Created After is not a valid date: 2025-13-01/],
		[
			{ lastActiveAfter: '2025-03-05T00:00:00Z', lastActiveBefore: '2025-03-05T00:00:00Z' },
			/^Last Active After \(2025-03-05T00:00:00Z\) must be earlier than Last Active Before \(2025-03-05T00:00:00Z\): no conversations could match/,
		],
		[
			{ neverActive: true, lastActiveBefore: '2025-03-05T00:00:00Z' },
			/^Never Active cannot be combined with Last Active After or Before/,
		],
		[{ neverActive: '={{ "yes" }}' }, /^Never Active must be true or false/],
	])('%j', async (filters, message) => {
		await setup();
		const { error } = await runMessagingNode({
			parameters: { resource: 'conversation', operation: 'getAll', returnAll: true, filters },
			input: [{}, {}],
			credentials,
		});
		expect(error?.message).toMatch(message);
		expect(error?.message).toMatch(/\[item 0\]$/);
		expect(wire(sandbox)).toEqual([]);
	});
});
