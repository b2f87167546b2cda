'use strict';
/** The trigger's events' property (see events.property.js) over a few generated schedules; more with TRIGGER_EVENTS_RUNS. */
const { checkEventsProperty, describeEventTotals } = require('./events.property');
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');

test('v2 events: edits, reactions, new conversations and bursts with faults, crashes and restarts: 0 lost, every duplicate marked, own actions skipped, bounded state', async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	try {
		const totals = await checkEventsProperty({
			runs: Number(process.env.TRIGGER_EVENTS_RUNS ?? 10),
		});
		console.log(describeEventTotals(totals));
		expect(totals.lost).toBe(0);
		expect(totals.unmarkedDuplicates).toBe(0);
		expect(totals.writtenByFailedChecks).toBe(0);
		expect(totals.ownDelivered).toBe(0);
		expect(totals.badBursts).toBe(0);
		expect(totals.brokenEditChains).toBe(0);
		expect(totals.expected).toBeGreaterThan(0);
		expect(totals.groupedBursts).toBeGreaterThan(0);
		expect(totals.failedChecks).toBeGreaterThan(0);
		expect(totals.restarts + totals.crashes).toBeGreaterThan(0);
		expect(totals.maxStateBytes).toBeLessThan(200_000);
	} finally {
		jest.useRealTimers();
	}
}, 180_000);
