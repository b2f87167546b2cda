'use strict';
const t = require('../../dist/nodes/shared/timestamps');

describe('timestamp units', () => {
	test('seconds and milliseconds are told apart by size, 1973 to 5138', () => {
		expect(t.unitOfTimestamp(1_795_286_175)).toBe('seconds');
		expect(t.unitOfTimestamp(1_795_286_175_000)).toBe('milliseconds');
		expect(t.unitOfTimestamp(100_000_000_000)).toBe('milliseconds'); // 1973-03-03 in ms
		expect(t.unitOfTimestamp(99_999_999_999)).toBe('seconds'); // year 5138 in s
	});

	test('the unit of a record comes from its first timestamp', () => {
		expect(t.detectTimestampUnit({ id: 'x', read_at: null, created_at: 1_700_000_000_000 })).toBe('milliseconds');
		expect(t.detectTimestampUnit({ id: 'x' })).toBeUndefined();
	});

	test('ISO copies are added beside timestamps, also of the embedded contact; integers stay', () => {
		const out = t.withIsoTimestamps(
			{ id: 'm', created_at: 1_700_000_000, read_at: null, contact: { id: 'c', created_at: 1_600_000_000 } },
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
		expect(t.withIsoTimestamps({ created_at: 1_700_000_000_000 }, 'milliseconds').created_at_iso).toBe('2023-11-14T22:13:20.000Z');
	});

	test('dates typed by a user become integers in the service unit', () => {
		expect(t.dateInputToTimestamp('2023-11-14T22:13:20Z', 'seconds')).toBe(1_700_000_000);
		expect(t.dateInputToTimestamp('2023-11-14T22:13:20.123Z', 'milliseconds')).toBe(1_700_000_000_123);
		expect(t.dateInputToTimestamp('1700000000', 'seconds')).toBe(1_700_000_000);
		expect(t.dateInputToTimestamp(new Date(1_700_000_000_000), 'seconds')).toBe(1_700_000_000);
		expect(t.dateInputToTimestamp({ toMillis: () => 1_700_000_000_000 }, 'seconds')).toBe(1_700_000_000);
		expect(t.dateInputToTimestamp('not a date', 'seconds')).toBeUndefined();
		expect(t.dateInputToTimestamp(1.5, 'seconds')).toBeUndefined();
	});
});
