'use strict';
/**
 * A check of a trigger on one conversation read from the account's pages
 * (nodes/MessagingTrigger/accountPage.ts), over a fake listing: when those pages stand for the
 * conversation's own listing, and when the check must list its conversation itself.
 */
const accountPage = require('../../dist/nodes/MessagingTrigger/accountPage');

const { ACCOUNT_SEEN_KEPT } = accountPage;
/** @type {(...args: any[]) => Promise<any>} the readings, loosely typed for the fakes */
const listFromAccountPage = accountPage.listFromAccountPage;
/** @type {(...args: any[]) => any} */
const accountStopLine = accountPage.accountStopLine;

const NOW_S = 1_800_000_000;
const settings = { pageSize: 3, unitSetting: 'seconds', nowMs: NOW_S * 1000, lookBackSeconds: 60 };

/**
 * Messages newest first, `[id, conversation, seconds ago]`, as the account's pages of `pageSize`.
 * @param {any[][]} messages
 */
function account(messages) {
	const records = messages.map(([id, conversation_id, ago]) => ({
		id,
		conversation_id,
		created_at: NOW_S - ago,
	}));
	const asked = [];
	/** @type {(cursor: string | undefined, limit: number) => Promise<any>} */
	const fetchPage = async (cursor, limit) => {
		asked.push(cursor);
		const from = cursor === undefined ? 0 : records.findIndex((r) => r.id === cursor) + 1;
		const data = records.slice(from, from + limit);
		return { data, hasMore: from + limit < records.length };
	};
	return { fetchPage, asked };
}

/**
 * A trigger on conv_a that knows m1 (10 minutes ago), newest first, settled through 11 minutes ago.
 * @param {Record<string, unknown>} [more]
 * @returns {any}
 */
const state = (more = {}) => ({
	version: 1,
	settledThrough: NOW_S - 661,
	newest: NOW_S - 600,
	recent: [['m1', NOW_S - 600]],
	order: 'newest_first',
	unit: 'seconds',
	...more,
});

/** The account: newest first, 3 a page. @type {any[][]} */
const HISTORY = [
	['m5', 'conv_b', 5],
	['m4', 'conv_a', 20],
	['m3', 'conv_b', 300],
	['m1', 'conv_a', 600],
	['m0', 'conv_a', 900],
	['mx', 'conv_c', 1000],
	['mw', 'conv_c', 1100],
];

test('the account pages down to known history stand for the conversation: its messages only, the account top kept', async () => {
	const { fetchPage, asked } = account(HISTORY);
	const read = await listFromAccountPage(fetchPage, state(), 'conv_a', settings, { pages: 3 });
	expect(read).not.toHaveProperty('declined');
	// Down to the page holding m1 (known) and ending on a settled message: 2 requests of 3.
	expect(asked).toEqual([undefined, 'm3']);
	expect(read.listed.map((m) => m.id)).toEqual(['m4', 'm1', 'm0']);
	expect(read.finished).toBe('complete');
	expect(read.exhausted).toBe(false);
	expect(read.accountSeen).toEqual(
		['mx', 'm0', 'm1', 'm3', 'm4', 'm5'].map((id) => [
			id,
			NOW_S - HISTORY.find(([i]) => i === id)[2],
		]),
	);
});

test('more pages to read than allowed: declined, with the top of the account as read', async () => {
	const { fetchPage, asked } = account(HISTORY);
	const read = await listFromAccountPage(fetchPage, state(), 'conv_a', settings, { pages: 1 });
	expect(read).toMatchObject({ declined: 'more than 1 page(s) to read on the account' });
	expect(read.accountSeen.map(([id]) => id)).toEqual(['m3', 'm4', 'm5']);
	expect(asked).toHaveLength(1);
});

test('the account listing read last time ends the walk at its top, past the look-back window', async () => {
	const { fetchPage, asked } = account([
		['m8', 'conv_b', 1],
		['m7', 'conv_b', 2],
		['m6', 'conv_a', 3],
		...HISTORY,
	]);
	// Last read, the account's top was m5 (5 s ago); with no look-back the walk needs one message below it.
	const seen = state({ accountSeen: [['m5', NOW_S - 5]] });
	const read = await listFromAccountPage(
		fetchPage,
		seen,
		'conv_a',
		{ ...settings, lookBackSeconds: 0 },
		{ pages: 5 },
	);
	expect(asked).toEqual([undefined, 'm6']);
	expect(read.listed.map((m) => m.id)).toEqual(['m6', 'm4']);
	// Without it, the walk goes down to the conversation's own known message (m1): one page more.
	const first = account([
		['m8', 'conv_b', 1],
		['m7', 'conv_b', 2],
		['m6', 'conv_a', 3],
		...HISTORY,
	]);
	await listFromAccountPage(
		first.fetchPage,
		state(),
		'conv_a',
		{ ...settings, lookBackSeconds: 0 },
		{ pages: 5 },
	);
	expect(first.asked).toHaveLength(3);
});

test.each([
	['no order known yet', { order: undefined }, 'the order of its listing is not known yet'],
	[
		'a service listing oldest first',
		{ order: 'oldest_first' },
		'the order of its listing is not known yet',
	],
	['no watermark yet', { settledThrough: null }, 'the order of its listing is not known yet'],
	['a backlog read in segments', { resume: ['m3'] }, 'a backlog is being read'],
])('%s: declined without a request', async (_name, more, reason) => {
	const { fetchPage, asked } = account(HISTORY);
	await expect(
		listFromAccountPage(fetchPage, state(more), 'conv_a', settings, { pages: 3 }),
	).resolves.toEqual({
		declined: reason,
	});
	expect(asked).toEqual([]);
});

test('a known message of the conversation missing from the pages read: declined, naming it (deleted, or listed apart)', async () => {
	const { fetchPage } = account(HISTORY);
	const known = state({
		recent: [
			['m1', NOW_S - 600],
			['m2', NOW_S - 400],
		],
	});
	await expect(
		listFromAccountPage(fetchPage, known, 'conv_a', settings, { pages: 3 }),
	).resolves.toEqual({
		declined: 'known messages are not on it',
		missing: ['m2'],
	});
});

test('a known message found deleted is not looked for again', async () => {
	const { fetchPage } = account(HISTORY);
	const known = state({
		recent: [
			['m1', NOW_S - 600],
			['m2', NOW_S - 400],
		],
	});
	const read = await listFromAccountPage(fetchPage, known, 'conv_a', settings, {
		pages: 3,
		gone: new Set(['m2']),
	});
	expect(read.listed.map((m) => m.id)).toEqual(['m4', 'm1', 'm0']);
});

test.each([
	[
		'messages that do not name their conversation',
		[['m5', undefined, 5], ...HISTORY.slice(1)],
		'its messages do not name their conversation',
	],
	[
		'an account listing out of newest-first order',
		[HISTORY[2], HISTORY[0], ...HISTORY.slice(3)],
		'the account listing is not newest first',
	],
])('%s: declined for good', async (_name, messages, reason) => {
	const { fetchPage } = account(/** @type {any} */ (messages));
	await expect(
		listFromAccountPage(fetchPage, state(), 'conv_a', settings, { pages: 3 }),
	).resolves.toEqual({
		declined: reason,
		distrust: true,
	});
});

test('pages that write a known message of the conversation under another ID: declined for good (the ID is written otherwise)', async () => {
	const { fetchPage } = account(HISTORY);
	await expect(
		listFromAccountPage(fetchPage, state(), 'CONV_A', settings, { pages: 3 }),
	).resolves.toEqual({ declined: 'it writes the conversation’s ID otherwise', distrust: true });
});

test('a service that ignores the cursor (the second page is the first again): declined, the conversation listed on its own', async () => {
	const { fetchPage } = account(HISTORY);
	const ignoring = /** @type {typeof fetchPage} */ async (_cursor, limit) =>
		await fetchPage(undefined, limit);
	await expect(
		listFromAccountPage(ignoring, state(), 'conv_a', settings, { pages: 3 }),
	).resolves.toEqual({
		declined: 'the account listing did not page further',
	});
});

describe('accountStopLine', () => {
	test("the first time, the conversation's own known history", () => {
		expect(accountStopLine(state(), settings)).toEqual(state());
	});
	test('then the top as last read, settled through the look-back window below its newest message (not one dated ahead)', () => {
		const seen = [
			['a', NOW_S - 30],
			['b', NOW_S - 10],
			['ahead', NOW_S + 50],
		];
		expect(accountStopLine(state({ accountSeen: seen }), settings)).toEqual({
			settledThrough: NOW_S - 10 - 60 - 1,
			recent: seen,
		});
	});
	test("never above the conversation's own watermark", () => {
		const seen = [['old', NOW_S - 5000]];
		expect(accountStopLine(state({ accountSeen: seen }), settings).settledThrough).toBe(
			NOW_S - 661,
		);
	});
	test(`keeps the top ${ACCOUNT_SEEN_KEPT} of the account`, async () => {
		const many = Array.from({ length: 30 }, (_, i) => [`n${i}`, 'conv_b', i + 1]);
		const { fetchPage } = account(
			/** @type {any} */ ([...many, ...HISTORY.map(([id, c, ago]) => [id, c, ago + 100])]),
		);
		const read = await listFromAccountPage(fetchPage, state(), 'conv_a', settings, { pages: 1 });
		expect(read.accountSeen).toHaveLength(3);
		const deep = await listFromAccountPage(
			fetchPage,
			state(),
			'conv_a',
			{ ...settings, pageSize: 100 },
			{ pages: 1 },
		);
		expect(deep.accountSeen).toHaveLength(ACCOUNT_SEEN_KEPT);
		expect(deep.accountSeen[ACCOUNT_SEEN_KEPT - 1][0]).toBe('n0');
	});
});

test('the stop line on the service clock: a message dated ahead of the service (not of this host) does not raise it', async () => {
	// The service's clock is 100 s behind this host's; "ahead" is dated 50 s past the service's now.
	const { fetchPage, asked } = account([
		['ahead', 'conv_b', 50],
		['n2', 'conv_b', 120],
		['b', 'conv_b', 200],
		['late', 'conv_a', 230],
		...HISTORY.slice(3),
	]);
	const behind = /** @type {typeof fetchPage} */ async (cursor, limit) => ({
		...(await fetchPage(cursor, limit)),
		serviceTimeMs: (NOW_S - 100) * 1000,
	});
	const seen = state({
		accountSeen: [
			['b', NOW_S - 200],
			['ahead', NOW_S - 50],
		],
	});
	const read = await listFromAccountPage(behind, seen, 'conv_a', settings, { pages: 5 });
	// The top's newest on the service's clock is b: the look-back window below it reaches "late".
	expect(asked).toEqual([undefined, 'b']);
	expect(read.listed.map((m) => m.id)).toEqual(['late', 'm1', 'm0']);
});

describe('listConversation', () => {
	/** @type {(...args: any[]) => Promise<any>} the listing, loosely typed for the fakes */
	const listConversation = accountPage.listConversation;
	/**
	 * The activation's use of the account's pages, recording what the check told it.
	 * @param {Record<string, unknown>} [more]
	 * @returns {any}
	 */
	const use = (more = {}) => {
		/** @type {any[][]} */
		const calls = [];
		return {
			calls,
			pages: 3,
			gone: new Set(),
			listedAs: 'conv_a',
			deleted: (/** @type {string[]} */ ids) => calls.push(['deleted', ids]),
			distrust: (/** @type {string} */ reason) => calls.push(['distrust', reason]),
			seenAs: (/** @type {string} */ id) => calls.push(['seenAs', id]),
			readNewer: () => calls.push(['readNewer']),
			...more,
		};
	};
	/**
	 * The conversation's own listing: `records` as listed, noted in `calls` when read.
	 * @param {any[][]} calls @param {any[]} records
	 */
	const own = (calls, records) => async () => {
		calls.push(['ownListing']);
		return { listed: records, finished: 'complete', from: null, pages: 1 };
	};
	const listing = (/** @type {any} */ accountPageUse, /** @type {any[]} */ records = []) => ({
		...settings,
		conversationId: 'CONV_A',
		accountPage: accountPageUse,
		ownListing: own(accountPageUse.calls, records),
	});

	test('until its own listing showed how the service writes the ID, the account is not read; then its messages are picked by that ID', async () => {
		const { fetchPage, asked } = account(HISTORY);
		const first = use({ listedAs: undefined });
		const records = [{ id: 'm1', conversation_id: 'conv_a', created_at: NOW_S - 600 }];
		await listConversation(fetchPage, state(), listing(first, records));
		expect(asked).toEqual([]);
		expect(first.calls).toEqual([['ownListing'], ['seenAs', 'conv_a']]);
		// Conversation "CONV_A", which the service takes for conv_a and writes so.
		const then = use();
		const read = await listConversation(fetchPage, state(), listing(then));
		expect(read.listed.map((/** @type {any} */ m) => m.id)).toEqual(['m4', 'm1', 'm0']);
		expect(then.calls).toEqual([]);
	});

	test('an own listing naming two conversations: the account is not read for it any more', async () => {
		const { fetchPage } = account(HISTORY);
		const mixed = use({ listedAs: undefined });
		await listConversation(
			fetchPage,
			state(),
			listing(mixed, [
				{ id: 'm1', conversation_id: 'conv_a', created_at: NOW_S - 600 },
				{ id: 'm3', conversation_id: 'conv_b', created_at: NOW_S - 300 },
			]),
		);
		expect(mixed.calls).toEqual([
			['ownListing'],
			['distrust', 'its own listing names other conversations'],
		]);
	});

	test('declined after reading the pages: the own listing is asked for afresh, so the top stored is never newer than what it read', async () => {
		const { fetchPage } = account(HISTORY);
		const busy = use({ pages: 1 });
		const read = await listConversation(fetchPage, state(), listing(busy));
		expect(busy.calls.slice(0, 2)).toEqual([['readNewer'], ['ownListing']]);
		expect(read.accountSeen.map((/** @type {any[]} */ [id]) => id)).toEqual(['m3', 'm4', 'm5']);
	});

	test('a cursor refused below the first page (its message deleted meanwhile): this check lists its own, the account stays in use', async () => {
		const { fetchPage } = account(HISTORY);
		const deleted = /** @type {typeof fetchPage} */ async (cursor, limit) =>
			cursor === undefined
				? await fetchPage(cursor, limit)
				: await Promise.reject(Object.assign(new Error('No such message'), { httpCode: '400' }));
		const busy = use();
		await listConversation(deleted, state(), listing(busy));
		expect(busy.calls).toEqual([['ownListing']]);
	});

	test.each([
		['403', true],
		['404', true],
		['401', false],
		['429', false],
		['503', false],
	])(
		'the account listing answered %s: read apart for good (%s), else the check fails',
		async (status, apart) => {
			const refused = /** @type {any} */ (
				async () => await Promise.reject(Object.assign(new Error('refused'), { httpCode: status }))
			);
			const refusing = use();
			const run = listConversation(refused, state(), listing(refusing));
			if (!apart) {
				await expect(run).rejects.toThrow('refused');
				expect(refusing.calls).toEqual([]);
				return;
			}
			await run;
			expect(refusing.calls).toEqual([
				['ownListing'],
				['distrust', `the service refused the account's listing (${status})`],
			]);
		},
	);
});
