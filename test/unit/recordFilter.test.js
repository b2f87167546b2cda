'use strict';
/** Get Many's filters, pure: what a record must hold to match, and when a list's order ends the paging. */
const {
	foldCase,
	recordMatches,
	pageFilter,
	unanimousOrder,
} = require('../../dist/nodes/Messaging/helpers/recordFilter');

const bound = (seconds) => ({ seconds, milliseconds: seconds * 1000 });
const rules = (extra) => ({ windows: [], unit: 'auto', ...extra });

test('a window is [after, before) in the record’s own unit; a record without the time never matches', () => {
	const window = { field: 'created_at', after: bound(100), before: bound(200) };
	const match = (record, unit = 'auto') =>
		recordMatches(record, rules({ windows: [window], unit }));
	expect([99, 100, 199, 200].map((t) => match({ created_at: t }))).toEqual([
		false,
		true,
		true,
		false,
	]);
	expect(match({ created_at: 150_000 }, 'milliseconds')).toBe(true); // 150 s, as the credential says
	expect(match({ created_at: 150_000 }, 'seconds')).toBe(false);
	expect(match({ created_at: '150' })).toBe(true); // numeric text, as some services send
	expect(match({ created_at: null })).toBe(false);
	expect(match({})).toBe(false);
});

test('Never Active, Unread Only: an empty time (null or "") is "never"; an absent field matches neither way', () => {
	const never = (neverActive, record) => recordMatches(record, rules({ neverActive }));
	expect([null, '', 1700000000, undefined].map((t) => never(true, { last_active_at: t }))).toEqual([
		true,
		true,
		false,
		false,
	]);
	expect([null, '', 1700000000, undefined].map((t) => never(false, { last_active_at: t }))).toEqual(
		[false, false, true, false],
	);
	const unread = (record) => recordMatches(record, rules({ unreadOnly: true }));
	expect([{ read_at: null }, { read_at: 1700000000 }, {}].map(unread)).toEqual([
		true,
		false,
		false,
	]);
});

test('From: a plain entry is an ID only, @name a username only; Text Contains ignores case', () => {
	const from = (entries, contact) => recordMatches({ contact }, rules({ from: entries }));
	expect(from(['ct_ann'], { id: 'ct_ann', username: 'ann' })).toBe(true);
	expect(from(['ann'], { id: 'ct_ann', username: 'ann' })).toBe(false);
	expect(from(['@ann'], { id: 'ct_ann', username: 'ann' })).toBe(true);
	expect(from(['@ct_ann'], { id: 'ct_ann', username: 'ann' })).toBe(false);
	expect(from(['42'], 42)).toBe(true); // a bare numeric contact id
	const text = (message) => recordMatches({ message }, rules({ textContains: 'refund' }));
	const cafe = recordMatches(
		{ message: 'Cafe\u0301 open' },
		rules({ textContains: foldCase('CAFÉ') }),
	);
	expect(cafe).toBe(true); // é typed as one character finds e + combining accent
	expect(['REFUND please', 'a Refund', 'refun d', null].map(text)).toEqual([
		true,
		true,
		false,
		false,
	]);
});

test('the order counts only when every unequal pair agrees, at least 4 of them', () => {
	expect(unanimousOrder({ rising: 0, falling: 4 })).toBe('newest_first');
	expect(unanimousOrder({ rising: 4, falling: 0 })).toBe('oldest_first');
	expect(unanimousOrder({ rising: 0, falling: 3 })).toBeUndefined();
	expect(unanimousOrder({ rising: 1, falling: 99 })).toBeUndefined(); // the trigger's rule would say newest first
});

describe('endsAfter', () => {
	const page = (...times) => times.map((created_at, i) => ({ id: `m${i}`, created_at }));
	test('newest first: the first page wholly before Created After ends it, not one that straddles it', () => {
		const filter = pageFilter(rules({ windows: [{ field: 'created_at', after: bound(100) }] }));
		expect(filter.endsAfter(page(130, 120, 110, 100, 90))).toBe(false);
		expect(filter.endsAfter(page(80, 70, 60))).toBe(true);
	});
	test('one pair against the order, anywhere in the walk, and every page is read', () => {
		const filter = pageFilter(rules({ windows: [{ field: 'created_at', after: bound(100) }] }));
		expect(filter.endsAfter(page(50, 130, 120, 110, 100))).toBe(false);
		expect(filter.endsAfter(page(80, 70, 60, 50, 40))).toBe(false);
	});
	test('oldest first ends at Created Before, never at Created After; Last Active never ends it', () => {
		const before = pageFilter(rules({ windows: [{ field: 'created_at', before: bound(100) }] }));
		expect(before.endsAfter(page(60, 70, 80, 90, 100))).toBe(false);
		expect(before.endsAfter(page(110, 120))).toBe(true);
		const after = pageFilter(rules({ windows: [{ field: 'created_at', after: bound(100) }] }));
		after.endsAfter(page(10, 20, 30, 40, 50));
		expect(after.endsAfter(page(60, 70))).toBe(false);
		const active = pageFilter(rules({ windows: [{ field: 'last_active_at', after: bound(100) }] }));
		const conversations = (...t) => t.map((c, i) => ({ id: i, created_at: c, last_active_at: c }));
		active.endsAfter(conversations(150, 140, 130, 120, 110));
		expect(active.endsAfter(conversations(90, 80))).toBe(false);
	});
	test('a page with a record without created_at, or an empty page, ends nothing', () => {
		const filter = pageFilter(rules({ windows: [{ field: 'created_at', after: bound(100) }] }));
		filter.endsAfter(page(150, 140, 130, 120, 110));
		expect(filter.endsAfter([...page(90, 80), { id: 'x' }])).toBe(false);
		expect(filter.endsAfter([])).toBe(false);
	});
	test('no rule set: no filter at all (the unfiltered paging is unchanged)', () => {
		expect(pageFilter(rules({}))).toBeUndefined();
		expect(pageFilter(rules({ unreadOnly: false }))).toBeUndefined();
	});
});
