'use strict';
/** The long run of the trigger's property (see property.js): many more generated schedules. Run with `npm run test:long`. */
const { checkProperty, describeTotals } = require('./property');
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');

test('v1 (polling): 1000 generated schedules, 0 lost, 0 duplicated', async () => {
	const totals = await checkProperty({
		version: 1,
		runs: Number(process.env.TRIGGER_PROPERTY_RUNS ?? 1000),
	});
	console.log(describeTotals(1, totals));
	expect(totals.lost).toBe(0);
	expect(totals.duplicated).toBe(0);
}, 1_800_000);

test('v2 (trigger): 300 generated schedules with crashes and restarts, 0 lost, every duplicate a marked redelivery', async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	try {
		const totals = await checkProperty({
			version: 2,
			runs: Number(process.env.TRIGGER_PROPERTY_RUNS ?? 300),
		});
		console.log(describeTotals(2, totals));
		expect(totals.lost).toBe(0);
		expect(totals.unmarkedDuplicates).toBe(0);
		expect(totals.reportedEarly).toBe(0);
		expect(totals.readAfterRestart).toBeGreaterThan(0);
		expect(totals.readByKey).toBe(0);
	} finally {
		jest.useRealTimers();
	}
}, 1_800_000);
