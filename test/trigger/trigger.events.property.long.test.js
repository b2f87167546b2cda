'use strict';
/** The long run of the trigger's events' property (see events.property.js). Run with `npm run test:long`. */
const { checkEventsProperty, describeEventTotals } = require('./events.property');
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');

test('v2 events: 150 generated schedules, 0 lost, every duplicate marked, own actions skipped, bounded state', async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	try {
		const totals = await checkEventsProperty({
			runs: Number(process.env.TRIGGER_EVENTS_RUNS ?? 150),
			seed: 20261126,
		});
		console.log(describeEventTotals(totals));
		expect(totals.lost).toBe(0);
		expect(totals.unmarkedDuplicates).toBe(0);
		expect(totals.writtenByFailedChecks).toBe(0);
		expect(totals.ownDelivered).toBe(0);
		expect(totals.badBursts).toBe(0);
		expect(totals.brokenEditChains).toBe(0);
		expect(totals.maxStateBytes).toBeLessThan(200_000);
	} finally {
		jest.useRealTimers();
	}
}, 600_000);
