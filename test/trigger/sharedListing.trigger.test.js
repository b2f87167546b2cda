'use strict';
/**
 * Version 2 triggers on one account that read the same listing (every conversation, one page size), in
 * one n8n process (n8n-core's TriggerContext, test/harness/triggerGroup.js): they check on one tick and
 * read each page once between them, and each still delivers exactly its own messages: one behind after a
 * restart, one whose request was aborted, one whose token is refused.
 */
const { createTriggerHost, TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox } = require('../harness/sandbox');
const { createTriggerGroup } = require('../harness/triggerGroup');

let sandbox;
let credentials;
let group;
let created; // ids of the messages sent, in order

async function setUp(options = {}) {
	({ sandbox, credentials } = await startSandbox({
		seed: 'none',
		clock: () => Date.now(),
		...options,
	}));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sandbox.store.addContact({ id: 'ct_bob', username: 'bob' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' });
	sandbox.store.createConversation({ contact_id: 'ct_bob' });
	group = createTriggerGroup({ sandbox, credentials });
	created = [];
}
beforeEach(() => jest.useFakeTimers(TRIGGER_FAKE_TIMERS));
afterEach(async () => {
	await group.stopAll();
	jest.useRealTimers();
	await sandbox.stop();
});

const send = (i) => {
	const from = i % 2 ? 'ct_bob' : 'ct_ann';
	const message = sandbox.store.sendMessage(from, {
		conversation_id: i % 2 ? 'conv_00000002' : 'conv_00000001',
		message: `message ${i}`,
	});
	created.push(message.id);
};
const everything = (options = {}) => ({ interval: 5, unit: 'seconds', options });
const listRequests = () =>
	sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/messages');
/** The ids each trigger delivered, in order. */
const deliveredBy = (host) => host.executions.flatMap((e) => e.json.map((j) => j.id));
const failedChecks = (host) => host.logs.filter((l) => /check failed/.test(l));

describe.each(['newest_first', 'oldest_first'])(
	'a service listing %s: triggers of one account watching every conversation',
	(order) => {
		test('5 triggers at 5 s, idle, make 1 list request per tick between them (not 5), and each delivers every message once', async () => {
			await setUp({ order });
			await group.start(5, () => everything());
			send(0);
			send(1);
			await group.runFor(20_000); // each learns the conversations once; the ticks align
			sandbox.clearRequests();
			await group.runFor(60_000);
			// 12 ticks of 5 s: at most one more for where the minute starts on the tick.
			expect(listRequests().length).toBeGreaterThanOrEqual(12);
			expect(listRequests().length).toBeLessThanOrEqual(13);
			expect(sandbox.requests).toHaveLength(listRequests().length); // nothing else at idle
			for (const host of group.hosts) expect(deliveredBy(host)).toEqual(created);
		});

		test('a trigger behind after a restart reads the pages nobody else asks for; every trigger delivers each message exactly once', async () => {
			await setUp({ order });
			await group.start(4, () => everything({ pageSize: 5 }));
			const late = group.hosts[0];
			let n = 0;
			for (let t = 0; t < 6; t++) {
				for (let i = 0; i < 3; i++) send(n++);
				await group.runFor(5_000);
			}
			await late.stop();
			for (let t = 0; t < 6; t++) {
				for (let i = 0; i < 7; i++) send(n++); // 42 while it is away: 9 pages of 5
				await group.runFor(5_000);
			}
			await group.activate(late); // its first check goes at once, on its own
			await group.runFor(5_000);
			const from = group.requestTimes.length;
			for (let t = 0; t < 6; t++) {
				for (let i = 0; i < 3; i++) send(n++);
				await group.runFor(5_000);
			}
			await group.runFor(10_000);
			for (const host of group.hosts) {
				expect(deliveredBy(host).sort()).toEqual([...created].sort());
				expect(host.duplicates).toEqual([]);
				expect(host.emitErrors).toEqual([]);
			}
			// Caught up, the four check on one tick again: no page is asked for twice in an interval.
			const asked = sandbox.requests
				.slice(from)
				.map((r, i) => ({ ...r, at: group.requestTimes[from + i] }));
			const first = asked[0].at;
			const perInterval = new Map();
			for (const r of asked.filter((x) => x.path === '/v1/messages')) {
				const key = `${Math.floor((r.at - first) / 5_000)} ${r.query}`;
				perInterval.set(key, (perInterval.get(key) ?? 0) + 1);
			}
			expect(Math.max(...perInterval.values())).toBe(1);
			expect(new Set(asked.map((r) => r.at)).size).toBeGreaterThanOrEqual(7);
		});
	},
);

test('a trigger stopped while its request for the shared page waits out a 429 fails none of the others: they ask for themselves', async () => {
	await setUp();
	await group.start(3, () => everything());
	await group.runFor(20_000);
	sandbox.failNext({
		match: { method: 'GET', path: '/v1/messages' },
		status: 429,
		retryAfter: 30,
		retryAfterForm: 'seconds',
	});
	send(0);
	await group.runFor(5_000); // the tick's shared request met the 429: every check waits on it
	expect(sandbox.requests.filter((r) => r.status === 429)).toHaveLength(1);
	await group.hosts[0].stop(); // the first to check: the request is its own
	await group.runFor(40_000);
	for (const host of group.hosts.slice(1)) {
		expect(failedChecks(host)).toEqual([]);
		expect(deliveredBy(host)).toEqual(created);
	}
});

test('a failed request is not kept: only the checks waiting for it fail, a check asking after it asks again, and every trigger delivers', async () => {
	await setUp();
	await group.start(3, () => everything());
	await group.runFor(20_000);
	sandbox.failNext({ match: { method: 'GET', path: '/v1/messages' }, status: 400, message: 'bad' });
	send(0);
	sandbox.clearRequests();
	await group.runFor(5_000);
	const failed = group.hosts.filter((h) => failedChecks(h).length === 1);
	expect(failed.length).toBeGreaterThanOrEqual(1);
	expect(listRequests().map((r) => r.status)).toEqual(failed.length === 3 ? [400] : [400, 200]);
	await group.runFor(15_000); // the backoff after one failure: twice the interval, then a check
	for (const host of group.hosts) expect(deliveredBy(host)).toEqual(created);
	expect(listRequests().filter((r) => r.status === 400)).toHaveLength(1);
});

test('a trigger whose token is refused fails on its own: the others of the account share their listing and deliver', async () => {
	await setUp();
	await group.start(2, () => everything());
	const refused = createTriggerHost({
		credentials: { ...credentials, accessToken: 'revoked-token' },
		workflowId: 'wf-refused',
		parameters: everything(),
	});
	await group.activate(refused).catch(() => {}); // its first check fails
	await group.runFor(20_000);
	sandbox.clearRequests();
	send(0);
	await group.runFor(30_000);
	for (const host of group.hosts.slice(0, 2)) expect(deliveredBy(host)).toEqual(created);
	const served = listRequests().filter((r) => r.status === 200);
	expect(served.length).toBeLessThanOrEqual(7); // one per tick for the two
});
