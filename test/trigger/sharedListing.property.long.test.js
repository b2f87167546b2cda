'use strict';
/** The long run of the trigger's property with listings shared (sharedListing.property.js). Run with `npm run test:long`. */
const { checkSharedProperty, expectSharing } = require('./sharedListing.property');

test('3 triggers sharing listings, 200 generated schedules with stops, crashes and faults: each delivers every message to its own trigger, every repeat a marked redelivery', async () => {
	const totals = await checkSharedProperty({
		runs: Number(process.env.SHARED_PROPERTY_RUNS ?? 200),
		seed: Number(process.env.SHARED_PROPERTY_SEED ?? 20261128),
	});
	console.log(`shared listings (long): ${JSON.stringify(totals)}`);
	expectSharing(totals);
}, 1_800_000);
