'use strict';
/**
 * The trigger's property with listings shared (run by sharedListing.property.test.js, and longer by
 * sharedListing.property.long.test.js): 3 version 2 triggers on one account in one n8n process,
 * all on every conversation (the same listing) or two on one conversation each beside one on every
 * conversation (the account's pages read for them), over generated schedules (both list orders, look-back
 * windows of 0, 10 and 60 s, 0 to 9 messages per tick,
 * a trigger stopped and started again later, the process crashing with every trigger in it, faults at a
 * request, executions that crash): every trigger delivers every message, and a message it delivers
 * again is a marked redelivery whose earlier attempt did not settle in the process that emitted it.
 */
const fc = require('fast-check');
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox } = require('../harness/sandbox');
const { createTriggerGroup } = require('../harness/triggerGroup');

const TRIGGERS = 3;
/** The fake clock's start, a whole second (2026-11-27 12:00 UTC): each schedule replays as it ran. */
const START = Date.UTC(2026, 10, 27, 12);
const FAULTS = [
	{ status: 500 },
	{ status: 429, retryAfter: 0 },
	{ drop: 'before' },
	{ status: 400 },
];

/** What trigger `i` watches: every conversation, or (`conversations`) the first two one each. */
const watched = (watch, i) => (watch === 'conversations' && i < 2 ? `conv_0000000${1 + i}` : '');

const scheduleArbitrary = fc.record({
	order: fc.constantFrom('newest_first', 'oldest_first'),
	watch: fc.constantFrom('every', 'conversations'),
	lookBackSeconds: fc.constantFrom(0, 10, 60),
	// Where in a second the fake clock starts: the sandbox dates messages in whole seconds.
	startMs: fc.integer({ min: 0, max: 999 }),
	steps: fc.array(
		fc.record({
			arrivals: fc.integer({ min: 0, max: 9 }),
			event: fc.constantFrom('none', 'none', 'none', 'stop', 'start', 'crash', 'fault'),
			who: fc.integer({ min: 0, max: TRIGGERS - 1 }),
			fault: fc.constantFrom(...FAULTS),
			faultAt: fc.integer({ min: 0, max: 3 }),
			end: fc.constantFrom('success', 'success', 'success', 'crashed', 'pending'),
		}),
		{ minLength: 3, maxLength: 10 },
	),
});

async function runSchedule({ order, watch, lookBackSeconds, startMs, steps }, totals) {
	jest.setSystemTime(START + startMs);
	const { sandbox, credentials } = await startSandbox({
		seed: 'none',
		order,
		clock: () => Date.now(),
		credentials: { ownContactId: 'ct_me' },
	});
	const group = createTriggerGroup({ sandbox, credentials });
	try {
		sandbox.store.addContact({ id: 'ct_ann' });
		sandbox.store.createConversation({ contact_id: 'ct_ann' });
		sandbox.store.createConversation({ contact_id: 'ct_ann' });
		await group.start(TRIGGERS, (i) => ({
			interval: 5,
			unit: 'seconds',
			conversationId: watched(watch, i),
			options: { pageSize: 4, lookBackSeconds },
		}));
		/** @type {Array<{ id: string, conversation: string }>} */
		const created = [];
		// Executions know the process they started in: a repeat is excused by a crash, not by a graceful stop.
		let epoch = 0;
		const tag = () => {
			for (const host of group.hosts) for (const e of host.executions) e.epoch ??= epoch;
		};
		// What is still running belongs to this process (crashAll marks what died with the last one).
		const endRunning = (end) => {
			for (const host of group.hosts)
				for (const e of host.executions) if (e.status === 'running') e.end(end);
		};
		for (const step of steps) {
			for (let i = 0; i < step.arrivals; i++) {
				const conversation = `conv_0000000${1 + (i % 2)}`;
				const { id } = sandbox.store.sendMessage('ct_ann', {
					conversation_id: conversation,
					message: `m ${created.length}`,
				});
				created.push({ id, conversation });
			}
			const host = group.hosts[step.who];
			if (step.event === 'stop' && host.process) await host.stop();
			else if (step.event === 'start' && !host.process) await group.activate(host);
			else if (step.event === 'crash') {
				totals.crashes += 1;
				epoch += 1;
				await group.crashAll();
			} else if (step.event === 'fault')
				sandbox.failNext(...Array(step.faultAt).fill({}), step.fault);
			await group.runFor(5_000);
			tag();
			sandbox.clearFaults();
			if (step.end !== 'pending') endRunning(step.end);
		}
		// Then all goes well: every trigger active, every execution ends, until all has settled.
		for (const host of group.hosts) if (!host.process) await group.activate(host);
		for (let round = 0; round < 8; round++) {
			endRunning('success');
			await group.runFor(5_000);
			tag();
		}
		endRunning('success');
		await group.stopAll();
		if (watch === 'conversations') {
			totals.checksOnOne += group.hosts[0].checksDone + group.hosts[1].checksDone;
			// Each listing of its own conversation asks for its first page once (retries aside).
			totals.ownListings += sandbox.requests.filter(
				(r) =>
					r.path === '/v1/messages' &&
					r.query.includes('conversation_id') &&
					!r.query.includes('starting_after'),
			).length;
		}
		group.hosts.forEach((host, i) => {
			const own = watched(watch, i);
			const expected = created.filter((m) => own === '' || m.conversation === own);
			judge(
				host,
				expected.map((m) => m.id),
				totals,
			);
		});
		totals.created += created.length;
	} finally {
		await group.stopAll();
		await sandbox.stop();
	}
}

/** Each message delivered, in a settled execution; a repeat only as a marked redelivery of an unsettled attempt. */
function judge(host, created, totals) {
	const deliveries = new Map();
	for (const execution of host.executions)
		for (const json of execution.json) {
			if (!deliveries.has(json.id)) deliveries.set(json.id, []);
			deliveries.get(json.id).push({ json, execution });
		}
	const wanted = new Set(created);
	for (const id of deliveries.keys()) if (!wanted.has(id)) totals.foreign += 1;
	for (const id of created) {
		const list = deliveries.get(id) ?? [];
		if (!list.some(({ execution }) => execution.status === 'success')) totals.lost += 1;
		for (let i = 1; i < list.length; i++) {
			const previous = list[i - 1].execution;
			const marked = list[i].json.redelivery === true;
			const unsettled = previous.status !== 'success';
			const lostWithProcess = previous.epoch < list[i].execution.epoch;
			if (marked && (unsettled || lostWithProcess)) totals.redeliveries += 1;
			else totals.unmarkedDuplicates += 1;
		}
	}
}

/**
 * Runs `runs` generated schedules (seeded) and checks each; returns the totals.
 * @param {{ runs: number, seed: number }} settings
 */
async function checkSharedProperty({ runs, seed }) {
	const totals = {
		created: 0,
		lost: 0,
		unmarkedDuplicates: 0,
		foreign: 0,
		redeliveries: 0,
		crashes: 0,
		checksOnOne: 0,
		ownListings: 0,
	};
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	try {
		await fc.assert(
			fc.asyncProperty(scheduleArbitrary, async (schedule) => {
				const before = { ...totals };
				await runSchedule(schedule, totals);
				expect(totals.lost).toBe(before.lost);
				expect(totals.unmarkedDuplicates).toBe(before.unmarkedDuplicates);
				expect(totals.foreign).toBe(0);
			}),
			{ numRuns: runs, seed, endOnFailure: true },
		);
	} finally {
		jest.useRealTimers();
	}
	return totals;
}

/** What every run of it must show beyond each schedule's own checks. */
/** @param {Record<string, number>} totals */
function expectSharing(totals) {
	expect(totals.created).toBeGreaterThan(0);
	// The triggers on one conversation read the account's pages instead of their own in some checks.
	expect(totals.ownListings).toBeLessThan(totals.checksOnOne * 0.9);
}

module.exports = { checkSharedProperty, expectSharing };
