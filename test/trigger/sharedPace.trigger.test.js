'use strict';
/**
 * Several version 2 triggers on one account in one n8n process (n8n-core's TriggerContext, one loaded
 * package, test/harness/n8n.js): their checks share one pace, triggers on different conversations keep apart, and one
 * trigger's trouble (a stop, a request that gave up) stops none of the others.
 */
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');
const { createTriggerGroup } = require('../harness/triggerGroup');

const COUNT = 4;
let sandbox;
let group;
let hosts;
let created; // message id -> creation time

beforeEach(async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	let credentials;
	({ sandbox, credentials } = await startSandbox({ seed: 'none', clock: () => Date.now() }));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	for (let i = 0; i < COUNT; i++) sandbox.store.createConversation({ contact_id: 'ct_ann' });
	group = createTriggerGroup({ sandbox, credentials });
	hosts = group.hosts;
	created = new Map();
});
afterEach(async () => {
	await group.stopAll();
	jest.useRealTimers();
	await sandbox.stop();
});

const conversation = (i) => `conv_0000000${i + 1}`;
const send = (i, text) => {
	const message = sandbox.store.sendMessage('ct_ann', {
		conversation_id: conversation(i),
		message: text,
	});
	created.set(message.id, Date.now());
};

/** COUNT triggers every 5 s, each on its own conversation, all on the same credential, in one process. */
const startTriggers = async (count = COUNT) =>
	await group.start(count, (i) => ({
		interval: 5,
		unit: 'seconds',
		conversationId: byId(conversation(i)),
		options: {},
	}));
const runFor = async (ms) => await group.runFor(ms);

/** A message into each trigger's conversation every `everyMs`, for `ms`. */
async function produceFor(ms, everyMs) {
	const timer = setInterval(() => {
		for (let i = 0; i < hosts.length; i++) send(i, `at ${Date.now()}`);
	}, everyMs);
	await runFor(ms);
	clearInterval(timer);
}

/** From each message's creation to the start of its execution, of the messages created since `created` was cleared. */
const latencies = () =>
	hosts.flatMap((h) =>
		h.executions.flatMap((e) =>
			e.json.filter((j) => created.has(j.id)).map((j) => e.startedAt - created.get(j.id)),
		),
	);

describe('Messaging Trigger v2: triggers on one account share its pace', () => {
	test('against a service allowing 1 request/s (bursts of 2), 4 triggers at 5 s meet no 429 once spread, and each message starts its execution within interval + 2 s', async () => {
		// 4 triggers ask 0.8 checks/s: under the limit, unless they all check on the same tick.
		sandbox.set({
			rateLimit: { shape: 'token-bucket', perSecond: 1, burst: 2, clock: () => Date.now() },
		});
		await startTriggers();
		for (let i = 0; i < COUNT; i++) send(i, 'first'); // each trigger looks its conversation up once
		await runFor(20_000); // the checks spread out
		sandbox.resetStats();
		created.clear();
		await produceFor(30_000, 2_500);
		await runFor(10_000); // what came last is delivered
		expect(sandbox.stats.rateLimited).toBe(0);
		const sent = created.size;
		const l = latencies();
		expect(l).toHaveLength(sent); // every message, once
		expect(Math.max(...l)).toBeLessThanOrEqual(7_000);
		for (const host of hosts) expect(host.emitErrors).toEqual([]);
	});

	test('the checks of 4 triggers at 5 s go at least 1 s apart (the interval over the triggers and one)', async () => {
		await startTriggers();
		await runFor(10_000);
		const from = group.requestTimes.length;
		await runFor(20_000);
		const starts = group.requestTimes.slice(from);
		const gaps = starts.slice(1).map((t, i) => t - starts[i]);
		expect(starts.length).toBeGreaterThanOrEqual(4 * 3);
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1_000);
	});
});

describe("Messaging Trigger v2: one trigger's trouble stops none of the others on its account", () => {
	test('after a storm in which every request gave up (which stops a node run), every trigger checks again and delivers once the service serves', async () => {
		await startTriggers(3);
		sandbox.failNext({ match: { method: 'GET' }, status: 503, times: 'always' });
		await runFor(40_000); // each check spends its retries and fails; the triggers back off
		expect(hosts.every((h) => h.logs.some((l) => /check failed/.test(l)))).toBe(true);
		sandbox.clearFaults();
		for (let i = 0; i < 3; i++) send(i, 'after the storm');
		await runFor(90_000); // the longest backoff so far, then a check
		for (const host of hosts)
			expect(host.executions.flatMap((e) => e.json).map((j) => j.message)).toEqual([
				'after the storm',
			]);
	});

	test('a trigger stopped while its check waits out a 429 stops at once; the others keep checking, spread again', async () => {
		await startTriggers(3);
		sandbox.failNext({
			match: { method: 'GET', url: /conv_00000001/ },
			status: 429,
			retryAfter: 30,
			retryAfterForm: 'seconds',
		});
		await runFor(5_000); // the first trigger's check is waiting for its retry
		expect(sandbox.requests.filter((r) => r.status === 429)).toHaveLength(1);
		const before = Date.now();
		await hosts[0].stop();
		expect(Date.now() - before).toBeLessThan(1_000); // not after the 30 s
		expect(hosts[0].logs.filter((l) => /check failed/.test(l))).toEqual([]); // a stop is no failure
		for (let i = 1; i < 3; i++) send(i, 'while the first is gone');
		const from = group.requestTimes.length;
		await runFor(20_000);
		for (const host of hosts.slice(1))
			expect(host.executions.flatMap((e) => e.json).map((j) => j.message)).toEqual([
				'while the first is gone',
			]);
		const starts = group.requestTimes.slice(from);
		const gaps = starts.slice(1).map((t, i) => t - starts[i]);
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5_000 / 4); // as spread for three, or wider
	});
});

test('a conversation whose messages never tell the account is looked up once per activation, not at every check', async () => {
	await startTriggers(1);
	for (let i = 0; i < 3; i++) {
		send(0, `message ${i}`);
		await runFor(5_000);
	}
	expect(hosts[0].executions.flatMap((e) => e.json)).toHaveLength(3);
	const lookups = sandbox.requests.filter((r) => r.path === `/v1/conversations/${conversation(0)}`);
	expect(lookups).toHaveLength(1);
});
