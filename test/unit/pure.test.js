'use strict';
const { textFromValue } = require('../../dist/nodes/Messaging/helpers/parameters');
const {
	hasNoRows,
	reactionsFromInput,
	reactionsFromService,
	withReaction,
	withoutReaction,
} = require('../../dist/nodes/Messaging/helpers/reactions');
const { collectRecords, nextCursor, smallerPageSize } = require('../../dist/nodes/shared/paginate');
const { MessagingApiError } = require('../../dist/nodes/shared/transport');
const { forEachWithConcurrency, Lanes } = require('../../dist/nodes/Messaging/helpers/concurrency');

describe('text parameters', () => {
	test('numbers and booleans from an expression are text; objects, lists and NaN are not', () => {
		expect(textFromValue('hi')).toEqual({ text: 'hi' });
		expect(textFromValue(10482)).toEqual({ text: '10482' });
		expect(textFromValue(0.5)).toEqual({ text: '0.5' });
		expect(textFromValue(false)).toEqual({ text: 'false' });
		expect(textFromValue(undefined)).toEqual({ text: '' });
		expect(textFromValue(null)).toEqual({ text: '' });
		expect(textFromValue({ a: 1 })).toEqual({ problem: 'must be text, not an object' });
		expect(textFromValue(['a'])).toEqual({ problem: 'must be text, not a list' });
		expect(textFromValue(NaN)).toEqual({ problem: 'must be text, not a number' });
	});
});

describe('a page size the service refuses', () => {
	const refused = (httpCode, reason) =>
		new MessagingApiError(
			/** @type {import('n8n-workflow').INode} */ ({
				name: 'Messaging',
				type: 'messaging',
				typeVersion: 1,
				parameters: {},
			}),
			{ message: reason },
			{ message: `The Messaging service rejected the request (${httpCode}): ${reason}`, httpCode },
			{ status: Number(httpCode), serviceText: reason },
		);
	test('the largest smaller number its reason names, else 10; other errors are not about it', () => {
		expect(smallerPageSize(refused('400', 'limit must be between 1 and 50'), 100)).toBe(50);
		expect(smallerPageSize(refused('422', 'Limit must be ≤ 25 (got 100)'), 100)).toBe(25);
		expect(smallerPageSize(refused('400', 'invalid limit'), 100)).toBe(10);
		expect(smallerPageSize(refused('400', 'invalid limit'), 10)).toBeUndefined();
		expect(
			smallerPageSize(refused('400', 'starting_after: no such object: m1'), 100),
		).toBeUndefined();
		expect(smallerPageSize(refused('404', 'limit'), 100)).toBeUndefined();
		expect(smallerPageSize(undefined, 100)).toBeUndefined();
		// Read from the error's fields, never from its text: a message naming a limit is not a reason.
		const plain = {
			httpCode: '400',
			message: 'The Messaging service rejected the request (400): limit 50',
		};
		expect(smallerPageSize(plain, 100)).toBeUndefined();
	});
});

describe('reactions', () => {
	test('the rows field with no row is told apart from rows and from an object of reactions', () => {
		expect(hasNoRows({})).toBe(true);
		expect(hasNoRows({ reaction: [] })).toBe(true);
		expect(hasNoRows({ reaction: [{ name: 'like', reactors: 'ann' }] })).toBe(false);
		expect(hasNoRows({ like: ['ann'] })).toBe(false);
		expect(hasNoRows('{}')).toBe(false);
		expect(hasNoRows(undefined)).toBe(false);
	});

	test('the service form (array of objects) merges into one map', () => {
		expect(
			reactionsFromService([{ like: ['ann'] }, { like: ['bob', 'ann'], love: ['cy'] }]),
		).toEqual({ like: ['ann', 'bob'], love: ['cy'] });
		expect(reactionsFromService([])).toEqual({});
		expect(reactionsFromService(undefined)).toEqual({});
	});
	test('add keeps others and never duplicates; remove drops empty names', () => {
		const map = { like: ['ann'], love: ['cy'] };
		expect(withReaction(map, 'like', 'bob')).toEqual({ like: ['ann', 'bob'], love: ['cy'] });
		expect(withReaction(map, 'like', 'ann')).toEqual(map);
		expect(withoutReaction(map, 'love', 'cy')).toEqual({ like: ['ann'] });
		expect(map).toEqual({ like: ['ann'], love: ['cy'] });
	});
	test('user input: rows, an object, the service array, or JSON text', () => {
		expect(
			reactionsFromInput({
				reaction: [
					{ name: 'like', reactors: 'ann, bob' },
					{ name: ' 👍 ', reactors: ['zoë'] },
				],
			}),
		).toEqual({ like: ['ann', 'bob'], '👍': ['zoë'] });
		expect(reactionsFromInput({ like: ['ann'] })).toEqual({ like: ['ann'] });
		expect(reactionsFromInput([{ like: ['ann'] }])).toEqual({ like: ['ann'] });
		expect(reactionsFromInput('{"like":["ann"]}')).toEqual({ like: ['ann'] });
	});
	test('wrong shapes say what is wrong', () => {
		expect(() => reactionsFromInput('like')).toThrow('not JSON');
		expect(() => reactionsFromInput({ like: [1] })).toThrow(
			'"like" must be a list of reactor names',
		);
		expect(() => reactionsFromInput(['like'])).toThrow('must map reaction names');
		expect(() => reactionsFromInput({ reaction: [{ name: '', reactors: 'a' }] })).toThrow(
			'row 1 has no reaction name',
		);
	});
});

function fakeService(total, { ignoreCursor = false, pageMax = 100 } = {}) {
	const records = Array.from({ length: total }, (_, i) => ({
		id: `r${String(i).padStart(5, '0')}`,
	}));
	const calls = [];
	const fetchPage = async (cursor, limit) => {
		calls.push({ cursor, limit });
		const start = cursor && !ignoreCursor ? records.findIndex((r) => r.id === cursor) + 1 : 0;
		const size = Math.min(limit, pageMax);
		return { hasMore: start + size < total, data: records.slice(start, start + size) };
	};
	return { fetchPage, calls };
}

describe('collectRecords', () => {
	test('Return All walks the cursor to the end, no duplicates', async () => {
		const service = fakeService(1234);
		const result = await collectRecords(service.fetchPage, Infinity);
		expect(result.records).toHaveLength(1234);
		expect(new Set(result.records.map((r) => r.id)).size).toBe(1234);
		expect(result).toMatchObject({ hasMore: false, stalled: false, capped: false, pages: 13 });
		expect(service.calls[1]).toEqual({ cursor: 'r00099', limit: 100 });
	});
	test('a limit asks for no more than needed and reports that more exist', async () => {
		const service = fakeService(30);
		const result = await collectRecords(service.fetchPage, 25);
		expect(result.records).toHaveLength(25);
		expect(result.hasMore).toBe(true);
		expect(service.calls.map((c) => c.limit)).toEqual([25]);
	});
	test('a service that ignores the cursor: stops after one repeated page, flagged incomplete', async () => {
		const service = fakeService(500, { ignoreCursor: true });
		const result = await collectRecords(service.fetchPage, Infinity);
		expect(result.records).toHaveLength(100);
		expect(result).toMatchObject({ stalled: true, pages: 2 });
	});
	test('a service that says has_more for ever: Return All stops at the ceiling, flagged capped', async () => {
		let n = 0;
		const endless = async () => ({ hasMore: true, data: [{ id: `e${n++}` }] });
		const result = await collectRecords(endless, Infinity, 50);
		expect(result).toMatchObject({ capped: true, hasMore: true, stalled: false, pages: 50 });
		expect(result.records).toHaveLength(50);
	});
	test('nextCursor: the last id, or stalled when the page did not advance', () => {
		expect(nextCursor([{ id: 'a' }, { id: 'b' }], true, undefined)).toEqual({
			next: 'b',
			stalled: false,
		});
		expect(nextCursor([{ id: 'a' }, { id: 'b' }], false, undefined)).toEqual({ stalled: false });
		expect(nextCursor([{ id: 'b' }], true, 'b')).toEqual({ stalled: true });
		expect(nextCursor([], true, 'b')).toEqual({ stalled: true });
		expect(nextCursor([{ id: 'c' }], true, 'b', 0)).toEqual({ stalled: true });
	});
	test('a page size cap of the service is followed', async () => {
		const service = fakeService(95, { pageMax: 10 });
		const result = await collectRecords(service.fetchPage, Infinity);
		expect(result.records).toHaveLength(95);
		expect(result.pages).toBe(10);
	});
});

describe('forEachWithConcurrency', () => {
	test('never more than the limit in flight; every index once', async () => {
		let inFlight = 0;
		let peak = 0;
		const done = [];
		await forEachWithConcurrency(50, 4, async (i) => {
			inFlight++;
			peak = Math.max(peak, inFlight);
			await new Promise((r) => setImmediate(r));
			done.push(i);
			inFlight--;
		});
		expect(peak).toBe(4);
		expect(done.sort((a, b) => a - b)).toEqual([...Array(50).keys()]);
	});
	test('after a failure no new task starts, and the lowest failing index is thrown', async () => {
		const started = [];
		const run = forEachWithConcurrency(20, 3, async (i) => {
			started.push(i);
			await new Promise((r) => setImmediate(r));
			if (i === 2 || i === 1) throw new Error(`fail ${i}`);
		});
		await expect(run).rejects.toThrow('fail 1');
		expect(Math.max(...started)).toBeLessThan(6);
	});
	test('a place lent during a wait serves the next item; the lender takes one back before any new item', async () => {
		const lanes = new Lanes(2);
		const events = [];
		/** @type {(value?: unknown) => void} */
		let releaseWait;
		const waitOver = new Promise((r) => (releaseWait = r));
		const run = forEachWithConcurrency(6, lanes, async (i) => {
			events.push(`start ${i}`);
			if (i === 0) {
				expect(lanes.lend()).toBe(true);
				await waitOver;
				await lanes.reclaim();
				events.push('0 back');
			} else await new Promise((r) => setImmediate(r));
		});
		// Item 0 waits: items 1..5 run two at a time in its place and item 1's.
		while (!events.includes('start 5')) await new Promise((r) => setImmediate(r));
		releaseWait();
		await run;
		expect(events.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `start ${i}`));
		expect(events.at(-1)).toBe('0 back');
	});
	test('at most `size` places lent at once, none of a single place; a returning item goes before a new one', async () => {
		expect(new Lanes(1).lend()).toBe(false);
		const lanes = new Lanes(2);
		await lanes.take();
		await lanes.take();
		expect(lanes.lend()).toBe(true);
		expect(lanes.lend()).toBe(true);
		expect(lanes.lend()).toBe(false);
		await lanes.take();
		await lanes.take(); // both lent places in use by new items
		const order = [];
		const newcomer = lanes.take().then(() => order.push('new'));
		const returning = lanes.reclaim().then(() => order.push('returning'));
		lanes.release();
		await returning;
		expect(order).toEqual(['returning']);
		lanes.release();
		await newcomer;
		expect(order).toEqual(['returning', 'new']);
	});
});
