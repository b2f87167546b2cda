'use strict';
/**
 * Property: over generated arrival schedules (bursts of 0 to 5 pages per poll, shared timestamps,
 * both list orders, both timestamp units, late arrivals inside the look-back window, and 429, 500 and
 * dropped connections injected at any request of a poll), every successful poll emits exactly the
 * messages created since the previous successful poll, oldest first: 0 lost, 0 duplicated.
 */
const fc = require('fast-check');
const { createTrigger } = require('../harness/n8n');
const { startSandbox } = require('../harness/sandbox');

const PAGE_SIZE = 4;
const RUNS = Number(process.env.TRIGGER_PROPERTY_RUNS ?? 2000);

const stepArbitrary = fc.record({
	pages: fc.integer({ min: 0, max: 5 }),
	extra: fc.integer({ min: 0, max: PAGE_SIZE - 1 }),
	clockAdvanceSeconds: fc.constantFrom(0, 0, 1, 2),
	lateBySeconds: fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 3 }),
	fault: fc.constantFrom(null, null, null, { status: 429, retryAfter: 0 }, { status: 500 }, { status: 503, retryAfter: 0 }, { drop: 'before' }),
	faultAtRequest: fc.integer({ min: 0, max: 4 }),
});

const scheduleArbitrary = fc.record({
	order: fc.constantFrom('newest_first', 'oldest_first'),
	unit: fc.constantFrom('s', 'ms'),
	existing: fc.integer({ min: 0, max: 9 }),
	steps: fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }),
});

const totals = { schedules: 0, created: 0, delivered: 0, lost: 0, duplicated: 0, faults: 0, failedPolls: 0, polls: 0 };

async function runSchedule({ order, unit, existing, steps }) {
	let now = Math.floor(Date.now() / 1000) * 1000;
	const { sandbox, credentials } = await startSandbox({
		seed: 'none',
		order,
		unit,
		clock: () => now,
		recordRequests: false,
		credentials: { ownContactId: 'ct_me' },
	});
	try {
		const { store } = sandbox;
		store.addContact({ id: 'ct_ann' });
		store.createConversation({ contact_id: 'ct_ann' });
		const toUnit = (ms) => (unit === 'ms' ? ms : Math.floor(ms / 1000));
		let counter = 0;
		const create = (createdAtMs) => {
			counter += 1;
			const created = store.sendMessage(
				'ct_ann',
				{ conversation_id: 'conv_00000001', message: `m${counter}` },
				createdAtMs === undefined ? {} : { createdAt: toUnit(createdAtMs) },
			);
			return { id: created.id, created_at: created.created_at };
		};
		for (let i = 0; i < existing; i++) create();

		const trigger = createTrigger({ credentials, parameters: { options: { pageSize: PAGE_SIZE, lookBackSeconds: 60 } } });
		expect(await trigger.poll()).toBeNull(); // activation: nothing emitted
		let pending = []; // created since the last successful poll
		const deliveredIds = new Set();

		const poll = async (fault, faultAtRequest) => {
			const before = JSON.stringify(trigger.state());
			if (fault) {
				sandbox.failNext(...Array(faultAtRequest).fill({}), fault);
				totals.faults += 1;
			}
			totals.polls += 1;
			let result;
			try {
				result = await trigger.poll();
			} catch (error) {
				totals.failedPolls += 1;
				expect(JSON.stringify(trigger.state())).toBe(before); // a failed poll changes nothing
				return;
			} finally {
				sandbox.clearFaults();
			}
			const emitted = (result?.[0] ?? []).map((item) => item.json);
			const expected = [...pending].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
			for (const message of emitted) {
				if (deliveredIds.has(message.id)) totals.duplicated += 1;
				deliveredIds.add(message.id);
			}
			totals.delivered += emitted.length;
			expect(emitted.map((m) => m.id)).toEqual(expected.map((m) => m.id));
			pending = [];
		};

		for (const step of steps) {
			now += step.clockAdvanceSeconds * 1000;
			const burst = step.pages * PAGE_SIZE + step.extra;
			for (let i = 0; i < burst; i++) pending.push(create());
			for (const late of step.lateBySeconds) pending.push(create(now - late * 1000));
			await poll(step.fault, step.faultAtRequest);
		}
		await poll(null, 0); // a clean poll delivers whatever a failed one left
		totals.created += counter - existing;
		totals.lost += counter - existing - deliveredIds.size;
		totals.schedules += 1;
	} finally {
		await sandbox.stop();
	}
}

test(`trigger property: ${RUNS} generated schedules, 0 lost, 0 duplicated`, async () => {
	await fc.assert(fc.asyncProperty(scheduleArbitrary, runSchedule), { numRuns: RUNS, seed: 20261122 });
	console.log(
		`trigger property: ${totals.schedules} schedules, ${totals.polls} polls (${totals.failedPolls} failed on ${totals.faults} injected faults), ` +
			`${totals.created} messages created, ${totals.delivered} delivered, ${totals.lost} lost, ${totals.duplicated} duplicated`,
	);
	expect(totals.lost).toBe(0);
	expect(totals.duplicated).toBe(0);
}, 600_000);
