'use strict';
/**
 * The trigger's property, for both versions: over generated schedules (bursts of 0 to 5 pages per
 * check, shared timestamps, both list orders, both timestamp units, late arrivals inside the look-back
 * window, 429, 500 and dropped connections at any request of a check) every message is delivered, oldest
 * first within each execution. Version 1: each successful poll emits exactly what arrived since the
 * previous one, 0 duplicated. Version 2 adds the ends of executions (success, node error, crash, never
 * started, never reported) and processes that stop or die and start again: 0 lost, and every message
 * delivered more than once is marked as a redelivery whose earlier attempt did not settle in the process
 * that emitted it. Lost deliveries are found again after a restart by listing (recovery by listing): no
 * message is read by itself; in schedules that hold the executions' ends until n8n dies, a crash loses every
 * delivery made since.
 */
const fc = require('fast-check');
const { startSandbox } = require('../harness/sandbox');
const { pollingVersion } = require('../harness/triggerVersions');
const { createTriggerHost } = require('../harness/n8n');
const { MAX_DELIVERY_ATTEMPTS } = require('../../dist/nodes/MessagingTrigger/v2/deliveryLedger');

const PAGE_SIZE = 4;
const FAULTS = [
	null,
	null,
	null,
	{ status: 429, retryAfter: 0 },
	{ status: 500 },
	{ status: 503, retryAfter: 0 },
	{ drop: 'before' },
];

const stepArbitrary = fc.record({
	pages: fc.integer({ min: 0, max: 5 }),
	extra: fc.integer({ min: 0, max: PAGE_SIZE - 1 }),
	clockAdvanceSeconds: fc.constantFrom(0, 0, 1, 2),
	lateBySeconds: fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 3 }),
	fault: fc.constantFrom(...FAULTS),
	faultAtRequest: fc.integer({ min: 0, max: 4 }),
	// Version 1 only: the service re-dates the last delivered message to now (it must not come again).
	redate: fc.boolean(),
	// Version 2 only: how the executions started by the previous check end, and what happens to n8n.
	ends: fc.array(
		fc.constantFrom(
			'success',
			'success',
			'success',
			'nodeError',
			'crashed',
			'notStarted',
			'workerKilled',
			'pending',
		),
		{ minLength: 1, maxLength: 4 },
	),
	process: fc.constantFrom('none', 'none', 'none', 'none', 'restart', 'crash', 'killAtEmit'),
});

const scheduleArbitrary = fc.record({
	order: fc.constantFrom('newest_first', 'oldest_first'),
	unit: fc.constantFrom('s', 'ms'),
	existing: fc.integer({ min: 0, max: 9 }),
	// Services that send created_at as numeric text, and services that cap a page below what is asked.
	stringTimestamps: fc.boolean(),
	pageCap: fc.constantFrom(undefined, undefined, 7),
	// Version 2: executions end only when n8n stops or dies, so a crash loses every delivery since the last one.
	holdEnds: fc.boolean(),
	steps: fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }),
});

function newTotals() {
	return {
		schedules: 0,
		created: 0,
		delivered: 0,
		lost: 0,
		duplicated: 0,
		unmarkedDuplicates: 0,
		redeliveries: 0,
		reported: 0,
		reportedEarly: 0,
		failedChecks: 0,
		checks: 0,
		restarts: 0,
		crashes: 0,
		readAfterRestart: 0,
		readByKey: 0,
	};
}

/** GET /v1/messages/{id} requests, but those asking whether a listing's cursor still exists (listing.ts). */
function readsByKey(requests) {
	return requests.filter((r, i) => {
		const id = /^\/v1\/messages\/([^/]+)$/.exec(r.path)?.[1];
		const before = requests[i - 1];
		return r.method === 'GET' && id && !before?.query.includes(`starting_after=${id}`);
	}).length;
}

async function withSandbox(
	{ order, unit, stringTimestamps, pageCap, recordRequests = false },
	run,
) {
	let now = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
	const { sandbox, credentials } = await startSandbox({
		seed: 'none',
		order,
		unit,
		clock: () => now,
		recordRequests,
		quirks: stringTimestamps ? { timestampsAsStrings: true } : {},
		...(pageCap ? { maxPageSize: pageCap } : {}),
		credentials: { ownContactId: 'ct_me' },
	});
	try {
		sandbox.store.addContact({ id: 'ct_ann' });
		sandbox.store.createConversation({ contact_id: 'ct_ann' });
		const toUnit = (ms) => (unit === 'ms' ? ms : Math.floor(ms / 1000));
		let counter = 0;
		const world = {
			sandbox,
			credentials,
			advance: (seconds) => (now += seconds * 1000),
			redate: (id) => sandbox.store.redate(id, toUnit(now)),
			now: () => now,
			created: () => counter,
			create(createdAtMs) {
				counter += 1;
				const message = sandbox.store.sendMessage(
					'ct_ann',
					{ conversation_id: 'conv_00000001', message: `m${counter}` },
					createdAtMs === undefined ? {} : { createdAt: toUnit(createdAtMs) },
				);
				return { id: message.id, created_at: message.created_at };
			},
		};
		return await run(world);
	} finally {
		await sandbox.stop();
	}
}

const byAge = (a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1);

/** Version 1: exactly the messages created since the last successful poll, 0 lost, 0 duplicated. */
async function runPolling(schedule, totals) {
	await withSandbox(schedule, async (world) => {
		const { sandbox } = world;
		for (let i = 0; i < schedule.existing; i++) world.create();
		const trigger = pollingVersion({
			credentials: world.credentials,
			parameters: { options: { pageSize: PAGE_SIZE, lookBackSeconds: 60 } },
		});
		expect(await trigger.check()).toBeNull();
		let pending = [];
		const deliveredIds = new Set();
		let lastDelivered;
		const poll = async (fault, faultAtRequest) => {
			const before = JSON.stringify(trigger.state());
			if (fault) sandbox.failNext(...Array(faultAtRequest).fill({}), fault);
			totals.checks += 1;
			let result;
			try {
				result = await trigger.check();
			} catch {
				totals.failedChecks += 1;
				expect(JSON.stringify(trigger.state())).toBe(before); // a failed poll changes nothing
				return;
			} finally {
				sandbox.clearFaults();
			}
			const emitted = (result?.[0] ?? []).map((item) => item.json);
			for (const message of emitted) {
				if (deliveredIds.has(message.id)) totals.duplicated += 1;
				deliveredIds.add(message.id);
				lastDelivered = message.id;
			}
			totals.delivered += emitted.length;
			expect(emitted.map((m) => m.id)).toEqual([...pending].sort(byAge).map((m) => m.id));
			pending = [];
		};
		for (const step of schedule.steps) {
			world.advance(step.clockAdvanceSeconds);
			if (step.redate && lastDelivered) world.redate(lastDelivered);
			for (let i = 0; i < step.pages * PAGE_SIZE + step.extra; i++) pending.push(world.create());
			for (const late of step.lateBySeconds) pending.push(world.create(world.now() - late * 1000));
			await poll(step.fault, step.faultAtRequest);
		}
		await poll(null, 0); // a clean poll delivers whatever a failed one left
		const created = world.created() - schedule.existing;
		totals.created += created;
		totals.lost += created - deliveredIds.size;
		totals.schedules += 1;
	});
}

/** Version 2 in a simulated n8n with execution ends and restarts: 0 lost, every duplicate a marked redelivery. */
async function runTrigger(schedule, totals) {
	await withSandbox({ ...schedule, recordRequests: true }, async (world) => {
		const { sandbox } = world;
		for (let i = 0; i < schedule.existing; i++) world.create();
		const host = createTriggerHost({
			credentials: world.credentials,
			parameters: {
				interval: 5,
				unit: 'seconds',
				options: { pageSize: PAGE_SIZE, lookBackSeconds: 60 },
			},
		});
		await host.start();
		expect(host.executions).toHaveLength(0);
		const createdIds = [];
		let ended = 0;
		const endExecutions = (ends) => {
			const open = host.executions.slice(ended);
			open.forEach((execution, i) => {
				const end = ends[i % ends.length];
				if (end !== 'pending') execution.end(end);
			});
			ended = host.executions.length;
		};
		try {
			for (const step of schedule.steps) {
				world.advance(step.clockAdvanceSeconds);
				for (let i = 0; i < step.pages * PAGE_SIZE + step.extra; i++)
					createdIds.push(world.create().id);
				for (const late of step.lateBySeconds)
					createdIds.push(world.create(world.now() - late * 1000).id);
				if (!schedule.holdEnds) endExecutions(step.ends);
				if (step.process === 'restart') {
					totals.restarts += 1;
					await host.stop();
					await host.start();
				} else if (step.process === 'crash') {
					totals.crashes += 1;
					await host.crash();
					await host.start();
				} else if (step.process === 'killAtEmit') {
					// Crashed, then killed again at the new activation's first emit, before n8n created its execution.
					totals.crashes += 2;
					await host.crash();
					await host.start({ dieAtEmit: true });
					await host.crash();
					await host.start();
				}
				if (step.fault) sandbox.failNext(...Array(step.faultAtRequest).fill({}), step.fault);
				totals.checks += 1;
				const logged = host.logs.length;
				await host.tick();
				sandbox.clearFaults();
				if (host.logs.slice(logged).some((line) => line.includes('check failed')))
					totals.failedChecks += 1;
			}
			// Then everything goes well until every delivery has settled: the executions still running end.
			const endRunning = () => {
				for (const execution of host.executions) {
					if (execution.status === 'running' && execution.processNumber === host.process.number)
						execution.end('success');
				}
				ended = host.executions.length;
			};
			for (let round = 0; round < 12; round++) {
				endRunning();
				await host.tick();
				const ledger = host.state().deliveries;
				if (
					ended === host.executions.length &&
					(!ledger || (ledger.inFlight.length === 0 && ledger.redeliver.length === 0))
				)
					break;
			}
			endRunning();
			await host.tick();
		} finally {
			if (host.process) await host.stop();
		}

		totals.readByKey += readsByKey(sandbox.requests);
		// Judge: each message's deliveries in order.
		const deliveries = new Map();
		host.executions.forEach((execution, index) => {
			const jsons = execution.json;
			expect(jsons.map((j) => j.id)).toEqual([...jsons].sort(byAge).map((j) => j.id)); // oldest first
			for (const json of jsons) {
				if (!deliveries.has(json.id)) deliveries.set(json.id, []);
				deliveries.get(json.id).push({ json, execution, index });
			}
		});
		const reportedIds = new Set(
			host.reported.flatMap(
				(error) => /Message ids: ([^.]*)\./.exec(error.description ?? '')?.[1].split(', ') ?? [],
			),
		);
		totals.reported += reportedIds.size;
		for (const id of createdIds) {
			const list = deliveries.get(id) ?? [];
			// Delivered: in an execution that finished (successfully, or failed on the workflow's own error).
			const settled = list.some(
				({ execution }) => execution.status === 'success' || execution.status === 'nodeError',
			);
			if (!settled && !reportedIds.has(id)) {
				totals.lost += 1;
				if (process.env.DEBUG_PROPERTY && totals.lost < 3)
					console.log(
						'lost',
						id,
						list.map(({ json, execution }) => [
							execution.status,
							execution.processNumber,
							json.attempt,
						]),
						JSON.stringify(host.savedState()?.deliveries),
						host.logs.slice(-5),
						JSON.stringify(schedule.steps.map((s) => [s.ends, s.process])),
					);
			}
			if (settled) totals.delivered += 1;
			// Reported only after every attempt had an execution: a process killed before n8n created one spends none.
			if (reportedIds.has(id) && list.length < MAX_DELIVERY_ATTEMPTS) totals.reportedEarly += 1;
			for (let i = 1; i < list.length; i++) {
				totals.duplicated += 1;
				const { json } = list[i];
				const previous = list[i - 1].execution;
				// A marked redelivery, and the attempt before it did not settle where it was emitted.
				const marked =
					json.redelivery === true && json.attempt === (list[i - 1].json.attempt ?? 1) + 1;
				const unsettled = previous.status !== 'success' && previous.status !== 'nodeError';
				const settledButLostWithProcess = previous.processNumber < list[i].execution.processNumber;
				if (settledButLostWithProcess) totals.readAfterRestart += 1;
				if (!marked || !(unsettled || settledButLostWithProcess)) totals.unmarkedDuplicates += 1;
				else totals.redeliveries += 1;
			}
		}
		totals.created += createdIds.length;
		totals.schedules += 1;
	});
}

async function checkProperty({ version, runs, seed = 20261122 }) {
	const totals = newTotals();
	const run = version === 1 ? runPolling : runTrigger;
	await fc.assert(
		fc.asyncProperty(scheduleArbitrary, (schedule) => run(schedule, totals)),
		{ numRuns: runs, seed },
	);
	return totals;
}

function describeTotals(version, totals) {
	return (
		`trigger v${version} property: ${totals.schedules} schedules, ${totals.checks} checks (${totals.failedChecks} failed), ` +
		`${totals.restarts} restarts, ${totals.crashes} crashes, ${totals.created} messages created, ${totals.delivered} delivered, ` +
		`${totals.lost} lost, ${totals.duplicated} delivered again (${totals.redeliveries} marked redeliveries, ${totals.unmarkedDuplicates} not), ` +
		`${totals.reported} reported after their last attempt (${totals.reportedEarly} before 5 executions had started)` +
		(version === 2
			? `, ${totals.readAfterRestart} delivered again after a restart, ${totals.readByKey} messages read by themselves`
			: '')
	);
}

module.exports = { checkProperty, describeTotals };
