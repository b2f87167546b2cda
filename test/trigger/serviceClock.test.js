'use strict';
/**
 * The first check of an oldest-first history longer than one check tells what existed at activation
 * from what is new by a time: the service's, when its answer says it (Date header), not the host's.
 * A check's listing and plan of new messages against an in-memory service whose clock runs 300 s behind the host.
 */
const { listSince } = require('../../dist/nodes/MessagingTrigger/listing');
const { planMessages } = require('../../dist/nodes/MessagingTrigger/planMessages');

/** What a check does for New Message: list since the state, then plan the new messages. */
async function checkForNew(fetchPage, state, settings, nowMs) {
	const listing = await listSince(fetchPage, state, { ...settings, nowMs });
	return planMessages(listing, undefined, settings);
}

const SKEW_MS = -300_000;

/** Oldest first, one message a page; `serviceTimeMs` on every answer unless `withoutTime`. */
function oldestFirstService({ withoutTime = false } = {}) {
	const messages = [];
	const clock = () => Date.now() + SKEW_MS;
	let sequence = 0;
	return {
		add(text, createdMs = clock()) {
			sequence += 1;
			messages.push({
				id: `msg_${sequence}`,
				message: text,
				created_at: Math.floor(createdMs / 1000),
			});
		},
		async fetchPage(cursor, limit) {
			const from = cursor === undefined ? 0 : messages.findIndex((m) => m.id === cursor) + 1;
			const data = messages.slice(from, from + limit);
			const page = { data, hasMore: from + limit < messages.length };
			return withoutTime ? page : { ...page, serviceTimeMs: clock() };
		},
	};
}

const settings = {
	pageSize: 1,
	lookBackSeconds: 60,
	emitExisting: false,
	unitSetting: 'auto',
	maxPages: 10,
};

/** A history of 25 messages an hour old: more than one check reads at 10 pages of 1. */
function withHistory(service) {
	for (let i = 0; i < 25; i++)
		service.add(`history ${i}`, Date.now() + SKEW_MS - 3_600_000 + i * 1000);
	return service;
}

/** `count` checks; a message is sent right after the first (activation). The states after each. */
async function runChecks(service, count) {
	let state = null;
	const states = [];
	const emitted = [];
	for (let i = 0; i < count; i++) {
		const { emit, next } = await checkForNew(
			(cursor, limit) => service.fetchPage(cursor, limit),
			state,
			settings,
			Date.now(),
		);
		emitted.push(...emit.map((m) => m.message));
		states.push((state = next));
		if (i === 0) service.add('new after activation'); // on the service's clock: 299 s behind ours
	}
	return { emitted, states };
}

test("a service whose clock runs 300 s behind: a message sent just after activation is delivered (the service's Date decides what existed)", async () => {
	const { emitted, states } = await runChecks(withHistory(oldestFirstService()), 5);
	// On the service's clock, 300 s below ours (before: our now - 1).
	expect(states[0].existingThrough).toBeLessThanOrEqual(Math.floor((Date.now() + SKEW_MS) / 1000));
	// Before: [] (its created_at, 299 s behind our clock, was below existingThrough on our clock).
	expect(emitted).toEqual(['new after activation']);
	expect(states[4].existingThrough).toBeUndefined(); // the history has been read to its end
});

test('a service that does not say its time: our clock decides, as before', async () => {
	const service = withHistory(oldestFirstService({ withoutTime: true }));
	const hostNow = Date.now();
	const first = await checkForNew(
		(cursor, limit) => service.fetchPage(cursor, limit),
		null,
		settings,
		hostNow,
	);
	expect(first.next.existingThrough).toBe(Math.floor(hostNow / 1000) - 1);
});
