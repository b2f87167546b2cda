'use strict';
/** The trigger's property (see property.js) over a few generated schedules; the long run is trigger.property.long.test.js. */
const { checkProperty, describeTotals } = require('./property');
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');

test('v1 (polling): generated schedules, 0 lost, 0 duplicated', async () => {
	const totals = await checkProperty({
		version: 1,
		runs: Number(process.env.TRIGGER_PROPERTY_RUNS ?? 15),
	});
	console.log(describeTotals(1, totals));
	expect(totals.lost).toBe(0);
	expect(totals.duplicated).toBe(0);
}, 120_000);

test('v2 (trigger): generated schedules with crashes and restarts, 0 lost, every duplicate a marked redelivery', async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	try {
		const totals = await checkProperty({
			version: 2,
			runs: Number(process.env.TRIGGER_PROPERTY_RUNS ?? 8),
		});
		console.log(describeTotals(2, totals));
		expect(totals.lost).toBe(0);
		expect(totals.unmarkedDuplicates).toBe(0);
		expect(totals.reportedEarly).toBe(0);
		expect(totals.restarts + totals.crashes).toBeGreaterThan(0);
		// Recovery by listing: what restarts lost was found again by listing, no message read by itself.
		expect(totals.readAfterRestart).toBeGreaterThan(0);
		expect(totals.readByKey).toBe(0);
	} finally {
		jest.useRealTimers();
	}
}, 120_000);
