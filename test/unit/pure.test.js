'use strict';
const { reactionsFromInput, reactionsFromService, withReaction, withoutReaction } = require('../../dist/nodes/shared/reactions');
const { collectPages } = require('../../dist/nodes/shared/pagination');
const { forEachWithConcurrency } = require('../../dist/nodes/shared/concurrency');

describe('reactions', () => {
	test('the service form (array of objects) merges into one map', () => {
		expect(reactionsFromService([{ like: ['ann'] }, { like: ['bob', 'ann'], love: ['cy'] }])).toEqual({ like: ['ann', 'bob'], love: ['cy'] });
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
		expect(reactionsFromInput({ reaction: [{ name: 'like', reactors: 'ann, bob' }, { name: ' 👍 ', reactors: ['zoë'] }] })).toEqual({ like: ['ann', 'bob'], '👍': ['zoë'] });
		expect(reactionsFromInput({ like: ['ann'] })).toEqual({ like: ['ann'] });
		expect(reactionsFromInput([{ like: ['ann'] }])).toEqual({ like: ['ann'] });
		expect(reactionsFromInput('{"like":["ann"]}')).toEqual({ like: ['ann'] });
	});
	test('wrong shapes say what is wrong', () => {
		expect(() => reactionsFromInput('like')).toThrow('not JSON');
		expect(() => reactionsFromInput({ like: [1] })).toThrow('"like" must be a list of reactor names');
		expect(() => reactionsFromInput(['like'])).toThrow('must map reaction names');
		expect(() => reactionsFromInput({ reaction: [{ name: '', reactors: 'a' }] })).toThrow('row 1 has no reaction name');
	});
});

function fakeService(total, { ignoreCursor = false, pageMax = 100 } = {}) {
	const records = Array.from({ length: total }, (_, i) => ({ id: `r${String(i).padStart(5, '0')}` }));
	const calls = [];
	const fetchPage = async (cursor, limit) => {
		calls.push({ cursor, limit });
		const start = cursor && !ignoreCursor ? records.findIndex((r) => r.id === cursor) + 1 : 0;
		const size = Math.min(limit, pageMax);
		return { has_more: start + size < total, data: records.slice(start, start + size) };
	};
	return { fetchPage, calls };
}

describe('collectPages', () => {
	test('Return All walks the cursor to the end, no duplicates', async () => {
		const service = fakeService(1234);
		const result = await collectPages(service.fetchPage, { max: Infinity, pageSize: 100 });
		expect(result.records).toHaveLength(1234);
		expect(new Set(result.records.map((r) => r.id)).size).toBe(1234);
		expect(result).toMatchObject({ hasMore: false, incomplete: false, pages: 13 });
		expect(service.calls[1]).toEqual({ cursor: 'r00099', limit: 100 });
	});
	test('a limit asks for no more than needed and reports that more exist', async () => {
		const service = fakeService(30);
		const result = await collectPages(service.fetchPage, { max: 25, pageSize: 10 });
		expect(result.records).toHaveLength(25);
		expect(result.hasMore).toBe(true);
		expect(service.calls.map((c) => c.limit)).toEqual([10, 10, 5]);
	});
	test('a service that ignores the cursor: stops after one repeated page, flagged incomplete', async () => {
		const service = fakeService(500, { ignoreCursor: true });
		const result = await collectPages(service.fetchPage, { max: Infinity, pageSize: 100 });
		expect(result.records).toHaveLength(100);
		expect(result).toMatchObject({ incomplete: true, pages: 2 });
	});
	test('a page size cap of the service is followed', async () => {
		const service = fakeService(95, { pageMax: 10 });
		const result = await collectPages(service.fetchPage, { max: Infinity, pageSize: 100 });
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
});
