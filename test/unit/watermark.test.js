'use strict';
const {
	advance,
	reachedKnownHistory,
	compareMessages,
	oldestFirst,
	oldestFirstCursor,
} = require('../../dist/nodes/MessagingTrigger/watermark');
const { toTriggerMessage } = require('../../dist/nodes/MessagingTrigger/triggerState');
const { countOrder, orderAfter, orderShown } = require('../../dist/nodes/shared/listOrder');

/** The order a listing shows, as the trigger reads it (listing.ts, newest.ts). */
const listOrderOf = (listed) => orderShown(countOrder(listed));

/** @typedef {import('../../dist/nodes/MessagingTrigger/triggerState').TriggerState} TriggerState */

const settings = { now: 1000, lookBack: 60, maxRecentIds: 5 };
const m = (id, created_at) => ({ id, created_at });

describe('advance: what to emit and what to remember', () => {
	test('first check: emits nothing, remembers the listed ids; the watermark stays strictly below newest minus the window', () => {
		const { emit, next } = advance(null, [m('a', 900), m('b', 950), m('c', 990)], settings);
		expect(emit).toEqual([]);
		expect(next).toEqual({
			version: 1,
			settledThrough: 929,
			newest: 990,
			recent: [
				['a', 900],
				['b', 950],
				['c', 990],
			],
		});
	});

	test('first check with emitExisting: everything, oldest first by created_at then id', () => {
		const { emit } = advance(null, [m('b', 990), m('a', 990), m('z', 900)], {
			...settings,
			emitExisting: true,
		});
		expect(emit.map((x) => x.id)).toEqual(['z', 'a', 'b']);
	});

	test("messages sharing a created_at are emitted in the service's list order (reversed when newest first), not by id", () => {
		/** @type {TriggerState} */
		const state = { version: 1, settledThrough: 900, newest: 950, recent: [] };
		// UUIDs: no order of their own; the listing is the only one.
		const newestFirst = [m('f3a0', 990), m('07bc', 990), m('c41d', 990), m('early', 980)];
		expect(
			advance(state, newestFirst, { ...settings, order: 'newest_first' }).emit.map((x) => x.id),
		).toEqual(['early', 'c41d', '07bc', 'f3a0']);
		const oldestFirstListing = [m('early', 980), m('f3a0', 990), m('07bc', 990), m('c41d', 990)];
		expect(
			advance(state, oldestFirstListing, { ...settings, order: 'oldest_first' }).emit.map(
				(x) => x.id,
			),
		).toEqual(['early', 'f3a0', '07bc', 'c41d']);
		// The bookkeeping does not depend on the listing's order.
		expect(advance(state, newestFirst, { ...settings, order: 'newest_first' }).next).toEqual(
			advance(state, oldestFirstListing, { ...settings, order: 'oldest_first' }).next,
		);
	});

	test('while the list order is unknown, numeric ids sharing a created_at go in numeric order', () => {
		const listed = [m('10', 990), m('9', 990), m('11', 990), m('2', 990)];
		expect(oldestFirst(listed, undefined).map((x) => x.id)).toEqual(['2', '9', '10', '11']);
		expect(
			advance(null, listed, { ...settings, emitExisting: true }).emit.map((x) => x.id),
		).toEqual(['2', '9', '10', '11']);
	});

	test('an empty stream at activation settles nothing: every later message is new', () => {
		const first = advance(null, [], settings).next;
		expect(first).toEqual({ version: 1, settledThrough: null, newest: null, recent: [] });
		expect(advance(first, [m('x', 5)], settings).emit).toEqual([m('x', 5)]);
	});

	test('known ids and settled messages are not emitted; duplicates in a listing count once', () => {
		/** @type {TriggerState} */
		const state = { version: 1, settledThrough: 930, newest: 990, recent: [['c', 990]] };
		const { emit, next } = advance(
			state,
			[m('c', 990), m('d', 990), m('d', 990), m('late', 940), m('old', 930)],
			settings,
		);
		expect(emit.map((x) => x.id)).toEqual(['late', 'd']);
		expect(next.recent).toEqual([
			['late', 940],
			['c', 990],
			['d', 990],
		]);
	});

	test('look-back 0: a message sharing the newest timestamp, listed later, is still new', () => {
		const zero = { ...settings, lookBack: 0 };
		const { next } = advance(
			{ version: 1, settledThrough: null, newest: null, recent: [] },
			[m('a', 990)],
			zero,
		);
		expect(next.settledThrough).toBe(989);
		expect(advance(next, [m('b', 990), m('a', 990)], zero).emit.map((x) => x.id)).toEqual(['b']);
	});

	test('a future-dated message does not move the watermark (a service clock behind ours loses nothing)', () => {
		/** @type {TriggerState} */
		const state = { version: 1, settledThrough: 930, newest: 990, recent: [] };
		const { emit, next } = advance(state, [m('future', 99_999)], settings);
		expect(emit.map((x) => x.id)).toEqual(['future']);
		expect(next).toMatchObject({ newest: 990, settledThrough: 930, recent: [['future', 99_999]] });
		expect(
			advance(next, [m('future', 99_999), m('normal', 1000)], settings).emit.map((x) => x.id),
		).toEqual(['normal']);
	});

	test('a delivered message whose created_at changes is not emitted again while its id is remembered', () => {
		const { next } = advance(
			{ version: 1, settledThrough: 900, newest: 950, recent: [] },
			[m('x', 950)],
			settings,
		);
		expect(advance(next, [m('x', 999)], settings).emit).toEqual([]);
		expect(advance(next, [m('x', 100_000)], settings).emit).toEqual([]);
	});

	test('over the bound, whole timestamp groups are forgotten from the oldest, settled if above the watermark; the newest group is always kept', () => {
		/** @type {TriggerState} */
		const state = { version: 1, settledThrough: 900, newest: 950, recent: [] };
		const listed = [
			m('a1', 950),
			m('a2', 950),
			m('b1', 960),
			m('b2', 960),
			m('c1', 970),
			m('c2', 970),
			m('c3', 970),
		];
		const { next } = advance(state, listed, settings);
		expect(next.settledThrough).toBe(950);
		expect(next.recent.map(([id]) => id)).toEqual(['b1', 'b2', 'c1', 'c2', 'c3']);

		const burst = Array.from({ length: 9 }, (_, i) => m(`s${i}`, 980));
		expect(advance(next, burst, settings).next.recent).toHaveLength(9);
	});

	test('fields it does not own (cursor, unit, own contact) are carried over', () => {
		/** @type {TriggerState} */
		const state = {
			version: 1,
			settledThrough: 900,
			newest: 950,
			recent: [],
			cursor: 'm9',
			unit: 'seconds',
			ownContactId: 'me',
		};
		expect(advance(state, [], settings).next).toMatchObject({
			cursor: 'm9',
			unit: 'seconds',
			ownContactId: 'me',
		});
	});

	test('while an oldest-first history is read after the first activation, what existed then is not emitted', () => {
		/** @type {TriggerState} */
		const state = { version: 1, settledThrough: 10, newest: 20, recent: [], existingThrough: 500 };
		expect(advance(state, [m('old', 400), m('new', 600)], settings).emit.map((x) => x.id)).toEqual([
			'new',
		]);
	});
});

test('listed records as trigger messages: numeric-string timestamps read as numbers, unreadable ones left out', () => {
	expect(toTriggerMessage({ id: 'a', created_at: '1700000000' })).toEqual({
		id: 'a',
		created_at: 1700000000,
	});
	expect(toTriggerMessage({ id: 7, created_at: 5 })).toEqual({ id: '7', created_at: 5 });
	expect(toTriggerMessage({ id: 'a', created_at: 'March 5' })).toBeUndefined();
	expect(toTriggerMessage({ id: 'a', created_at: null })).toBeUndefined();
	expect(toTriggerMessage({ created_at: 5 })).toBeUndefined();
});

test('order helpers', () => {
	expect(countOrder([m('b', 2), m('a', 1)])).toEqual({ rising: 0, falling: 1 });
	expect(countOrder([m('a', 1)], m('z', 0), { rising: 2, falling: 5 })).toEqual({
		rising: 3,
		falling: 5,
	});
	expect(listOrderOf([m('a', 1), m('b', 1), m('c', 2)])).toBe('oldest_first');
	expect(listOrderOf([m('a', 2), m('b', 1)])).toBe('newest_first');
	expect(listOrderOf([m('a', 1), m('b', 1)])).toBeUndefined();
	expect(reachedKnownHistory({ settledThrough: 5, recent: [] }, [m('x', 9), m('y', 5)], true)).toBe(
		true,
	);
	expect(reachedKnownHistory({ settledThrough: 5, recent: [] }, [m('x', 9), m('y', 6)], true)).toBe(
		false,
	);
	expect(
		reachedKnownHistory({ settledThrough: 5, recent: [] }, [m('x', 9), m('y', 1)], false),
	).toBe(false);
	expect(reachedKnownHistory({ settledThrough: null, recent: [] }, [m('y', 1)], true)).toBe(false);
	expect([m('b', 1), m('a', 1), m('c', 0)].sort(compareMessages).map((x) => x.id)).toEqual([
		'c',
		'a',
		'b',
	]);
});

test('oldest-first cursor: the last listed message that is settled, never the last listed; kept when none is', () => {
	expect(oldestFirstCursor([m('a', 1), m('b', 2), m('c', 3)], 2, 'z')).toBe('b');
	expect(oldestFirstCursor([m('a', 5)], 2, 'z')).toBe('z');
	expect(oldestFirstCursor([m('a', 1)], null, undefined)).toBeUndefined();
	// Never the last listed: a listing from the cursor always holds a message already seen.
	expect(oldestFirstCursor([m('a', 1), m('b', 2)], 5, 'z')).toBe('a');
	expect(oldestFirstCursor([m('a', 1)], 5, 'z')).toBe('z');
});

test('the list order is what most adjacent pairs show: a late message at the top of a newest-first list does not turn it', () => {
	// Sorted by insertion, newest first: the last inserted message is dated 15 s before the one before it.
	const listed = [m('late', 985), m('h4', 1000), m('h3', 990), m('h2', 980), m('h1', 970)];
	expect(listOrderOf(listed)).toBe('newest_first'); // before: 'oldest_first', from the first pair
	expect(listOrderOf([m('a', 1), m('b', 2), m('late', 0), m('c', 3)])).toBe('oldest_first');
	expect(listOrderOf([m('late', 985), m('h', 1000)])).toBe('oldest_first'); // two messages can mislead
	expect(listOrderOf([m('a', 2), m('b', 3), m('c', 1)])).toBeUndefined(); // one pair each way
});

test('a stored order is overturned only by a listing that clearly shows the other', () => {
	const falling = (n, rising = 0) => ({ falling: n, rising });
	expect(orderAfter(undefined, falling(1))).toBe('newest_first');
	expect(orderAfter(undefined, falling(0))).toBeUndefined();
	expect(orderAfter('oldest_first', falling(1))).toBe('oldest_first');
	expect(orderAfter('oldest_first', falling(3))).toBe('oldest_first');
	expect(orderAfter('oldest_first', falling(4, 2))).toBe('oldest_first');
	expect(orderAfter('oldest_first', falling(4, 1))).toBe('newest_first');
	expect(orderAfter('newest_first', { rising: 12, falling: 1 })).toBe('oldest_first');
	expect(orderAfter('newest_first', falling(0))).toBe('newest_first');
});

test('the early stop needs a settled message the state knows: one never seen may hide messages inserted below it', () => {
	/** @type {Pick<TriggerState, 'settledThrough' | 'recent'>} */
	const state = {
		settledThrough: 940,
		recent: [
			['k1', 900],
			['k2', 930],
			['k3', 990],
		],
	};
	expect(reachedKnownHistory(state, [m('new', 995), m('k2', 930)], true)).toBe(true);
	expect(reachedKnownHistory(state, [m('k3', 990), m('x', 935)], true)).toBe(true);
	// Arrived later than the window: settled, never seen; by insertion, newer messages may lie below it.
	expect(reachedKnownHistory(state, [m('new', 995), m('stale', 920)], true)).toBe(false);
	expect(reachedKnownHistory(state, [m('new', 995), m('ancient', 899)], true)).toBe(false);
	// A page older than everything remembered: the stop is taken (a check does not read the whole history).
	expect(reachedKnownHistory(state, [m('a2', 899), m('a1', 800)], true)).toBe(true);
	expect(reachedKnownHistory({ settledThrough: 940 }, [m('x', 920)], true)).toBe(true);
});
