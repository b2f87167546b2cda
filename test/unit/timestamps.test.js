'use strict';
const t = require('../../dist/nodes/shared/timestamps');

describe('timestampValue', () => {
	test('a number, or a number as text; nothing beyond what a Date holds', () => {
		expect(t.timestampValue(1_795_286_175)).toBe(1_795_286_175);
		expect(t.timestampValue('1795286175')).toBe(1_795_286_175);
		expect(t.timestampValue(' 12 ')).toBe(12);
		for (const bad of ['', '1e5', 'soon', '9'.repeat(400), Infinity, NaN, 9e15, null, undefined])
			expect(t.timestampValue(bad)).toBeUndefined();
		// 400 digits were Infinity: a trigger message dated Infinity, an ISO field that threw RangeError.
		expect(t.withIsoTimestamps({ created_at: '9'.repeat(400) }, 'auto')).toEqual({
			created_at: '9'.repeat(400),
		});
		expect(t.withIsoTimestamps({ created_at: 9e12 }, 'seconds')).toEqual({ created_at: 9e12 });
	});
});

describe('timestamp units', () => {
	test('seconds and milliseconds are told apart by size, 1973 to 5138', () => {
		expect(t.unitOfTimestamp(1_795_286_175)).toBe('seconds');
		expect(t.unitOfTimestamp(1_795_286_175_000)).toBe('milliseconds');
		expect(t.unitOfTimestamp(100_000_000_000)).toBe('milliseconds'); // 1973-03-03 in ms
		expect(t.unitOfTimestamp(99_999_999_999)).toBe('seconds'); // year 5138 in s
	});

	test('the unit of a record comes from its first timestamp', () => {
		expect(t.detectTimestampUnit({ id: 'x', read_at: null, created_at: 1_700_000_000_000 })).toBe(
			'milliseconds',
		);
		expect(t.detectTimestampUnit({ id: 'x' })).toBeUndefined();
	});

	test('ISO copies are added beside timestamps, also of the embedded contact; integers stay', () => {
		const out = t.withIsoTimestamps(
			{
				id: 'm',
				created_at: 1_700_000_000,
				read_at: null,
				contact: { id: 'c', created_at: 1_600_000_000 },
			},
			'auto',
		);
		expect(out).toEqual({
			id: 'm',
			created_at: 1_700_000_000,
			created_at_iso: '2023-11-14T22:13:20.000Z',
			read_at: null,
			read_at_iso: null,
			contact: { id: 'c', created_at: 1_600_000_000, created_at_iso: '2020-09-13T12:26:40.000Z' },
		});
		expect(
			t.withIsoTimestamps({ created_at: 1_700_000_000_000 }, 'milliseconds').created_at_iso,
		).toBe('2023-11-14T22:13:20.000Z');
	});

	test('dates typed by a user become integers in the service unit', () => {
		/** @typedef {{ timestamp?: number, problem?: string }} Parsed */
		const ok = (input, unit, tz) =>
			/** @type {Parsed} */ (t.parseDateInput(input, unit, tz)).timestamp;
		const problem = (input, tz) =>
			/** @type {Parsed} */ (t.parseDateInput(input, 'seconds', tz)).problem;
		expect(ok('2023-11-14T22:13:20Z', 'seconds')).toBe(1_700_000_000);
		expect(ok('2023-11-14T22:13:20.123Z', 'milliseconds')).toBe(1_700_000_000_123);
		expect(ok('2023-11-14T23:13:20+01:00', 'seconds')).toBe(1_700_000_000);
		expect(ok('1700000000', 'seconds')).toBe(1_700_000_000);
		expect(ok(1_700_000_000, 'seconds')).toBe(1_700_000_000);
		expect(ok(new Date(1_700_000_000_000), 'seconds')).toBe(1_700_000_000);
		expect(ok({ toMillis: () => 1_700_000_000_000 }, 'seconds')).toBe(1_700_000_000);
		// Without an offset: the workflow's timezone, daylight saving included.
		expect(ok('2023-11-14T23:13:20', 'seconds', 'Europe/Berlin')).toBe(1_700_000_000);
		expect(ok('2023-07-01T02:00:00', 'seconds', 'Europe/Berlin')).toBe(
			Date.UTC(2023, 6, 1, 0) / 1000,
		);
		expect(ok('2023-11-14', 'seconds', 'UTC')).toBe(Date.UTC(2023, 10, 14) / 1000);
		// Strict: no guessing.
		for (const bad of [
			'not a date',
			'foo 1',
			'March 5',
			'2025-02-30',
			'2025-13-01',
			'2025-01-01T24:00:00Z',
		]) {
			expect(problem(bad)).toMatch(/is not (a|a valid) date/);
		}
		expect(problem(1.5)).toMatch(/is not a date/);
		expect(problem({ a: 1 })).toMatch(/is not a date/);
		expect(problem('2023-11-14T10:00:00', 'Not/AZone')).toMatch(/timezone/);
	});
});
