'use strict';
/** The trigger's property with listings shared (sharedListing.property.js): a short run in every `npm test`. */
const { checkSharedProperty, expectSharing } = require('./sharedListing.property');

test('3 triggers sharing listings, 12 generated schedules with stops, crashes and faults: each delivers every message to its own trigger, every repeat a marked redelivery', async () => {
	const totals = await checkSharedProperty({
		runs: Number(process.env.SHARED_PROPERTY_RUNS ?? 12),
		seed: Number(process.env.SHARED_PROPERTY_SEED ?? 20261127),
	});
	console.log(`shared listings: ${JSON.stringify(totals)}`);
	expectSharing(totals);
}, 120_000);
