'use strict';
/**
 * Version 2 (trigger()) through n8n-core's TriggerContext in a simulated n8n (test/harness/n8n.js):
 * the schedule, deliveries settled by donePromise, n8n before 2.20, Fetch Test Event. Redelivery of lost
 * executions and restarts are in triggerV2Restarts.test.js.
 */
const {
	createTriggerHost,
	credentialReads,
	fetchTestEvent,
	TRIGGER_FAKE_TIMERS,
} = require('../harness/n8n');
const { byId, TOKEN } = require('../harness/sandbox');
const { startTriggerSandbox, triggerHelpers } = require('../harness/triggerSuite');
const {
	UNSUPPORTED_N8N_WARNING: UNSUPPORTED,
} = require('../../dist/nodes/MessagingTrigger/v2/checkLoop');

let sandbox;
let credentials;
let now; // the service's clock, in milliseconds
let host;

beforeEach(async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	now = Math.floor(Date.now() / 1000) * 1000;
	({ sandbox, credentials } = await startTriggerSandbox(() => now));
});
afterEach(async () => {
	if (host?.process) await host.stop();
	host = undefined;
	jest.useRealTimers();
	await sandbox.stop();
});

const { send } = triggerHelpers(() => sandbox);
const texts = (jsons) => jsons.map((json) => json.message);
const advanceServiceClock = (seconds = 1) => {
	now += seconds * 1000;
};
const every = (interval, unit = 'seconds', options = {}) => ({ interval, unit, options });

describe('Messaging Trigger v2: schedule', () => {
	test('checks every 5 seconds, one request per check with nothing new, never two checks at once', async () => {
		send('old');
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		expect(host.executions).toHaveLength(0); // activation notes where the stream stands
		sandbox.clearRequests();
		const gaps = [];
		for (let i = 0; i < 4; i++) gaps.push(await host.tick());
		expect(gaps).toEqual([5000, 5000, 5000, 5000]);
		expect(sandbox.requests.map((r) => r.method + ' ' + r.path)).toEqual(
			Array(4).fill('GET /v1/messages'),
		);
		expect(sandbox.stats.peakInFlight).toBe(1);
	});
});

describe('Messaging Trigger v2: schedule under load and failure', () => {
	test('a slow check delays the next one; it never runs twice at once', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		sandbox.set({ latencyMs: 12_000 }); // the service's latency runs on the same fake clock
		sandbox.clearRequests();
		const waits = [];
		for (let i = 0; i < 3; i++) waits.push(await host.tick());
		// From one check's end to the next one's: the 5 s interval, then the 12 s the answer takes. The interval counts from a check's end.
		expect(waits).toEqual([17_000, 17_000, 17_000]);
		expect(sandbox.requests).toHaveLength(3);
		expect(sandbox.stats.peakInFlight).toBe(1);
	});

	test('only a first activation waits for its check: n8n 2.40 fails an activation that takes over 84 s', async () => {
		send('before');
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		expect(host.savedState()).toBeDefined(); // where the stream stood, saved with the activation
		await host.stop();
		send('while stopped');
		sandbox.set({ latencyMs: 20_000 }); // on the fake clock, within the request timeout
		const restartedAt = Date.now();
		let activated = false;
		const starting = host.start().then(() => (activated = true));
		while (!activated) await jest.advanceTimersToNextTimerAsync();
		await starting;
		expect(host.activatedAt - restartedAt).toBeLessThan(1000);
		expect(texts(host.delivered())).toEqual(['while stopped']); // by its first check, right after
	});

	test('failed checks back off (doubling, capped), never stop the trigger, and a success resets the pace', async () => {
		send('before');
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		sandbox.set({ tokens: {} }); // the token revoked, 401: not retried by the transport, the check fails at once
		const gaps = [];
		for (let i = 0; i < 8; i++) gaps.push(await host.tick());
		// The first gap is the normal interval; then each failure doubles the wait (plus up to 10% spread) up to 5 minutes.
		const [first, ...backoff] = gaps;
		expect(first).toBe(5000);
		const floors = [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000];
		backoff.forEach((gap, i) => {
			expect(gap).toBeGreaterThanOrEqual(floors[i]);
			expect(gap).toBeLessThanOrEqual(Math.min(300_000, floors[i] * 1.1));
		});
		expect(host.emitErrors).toEqual([]); // n8n would deactivate a trigger that calls emitError
		expect(host.reported.length).toBeGreaterThanOrEqual(1); // a lasting outage is reported (failed execution, error workflow)
		expect(host.reported[0].message).toMatch(/^Authentication failed.*the trigger keeps trying/);
		sandbox.set({ tokens: { [TOKEN]: 'ct_me' } });
		advanceServiceClock();
		send('after the outage');
		await host.tick(); // the last backoff wait, then a successful check
		expect(texts(host.delivered())).toEqual(['after the outage']);
		expect(await host.tick()).toBe(5000);
	});

	test('the credential is read once a minute, not at every check: an edit takes effect within a minute, and a failed check reads it again', async () => {
		send('before');
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		const read = () => credentialReads(credentials);
		const atStart = read();
		for (let i = 0; i < 11; i++) await host.tick(); // 55 s of checks
		expect(read()).toBe(atStart);
		const token = credentials.accessToken;
		credentials.accessToken = 'edited-and-wrong';
		advanceServiceClock();
		send('still read with the token as it was');
		await host.tick(); // 60 s: read again, the edited token refused
		expect(read()).toBe(atStart + 1);
		expect(texts(host.delivered())).toEqual([]);
		credentials.accessToken = token;
		await host.tick(); // after a failure, read again at once
		expect(read()).toBe(atStart + 2);
		expect(texts(host.delivered())).toEqual(['still read with the token as it was']);
	});

	test("429s asking for 120 s: the next check waits the service's whole Retry-After, not the transport's 60 s cap", async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		sandbox.failNext({
			match: { method: 'GET', path: '/v1/messages' },
			status: 429,
			retryAfter: 120,
			retryAfterForm: 'seconds',
			times: 'always',
		});
		const checks = [];
		for (let i = 0; i < 3; i++) {
			const before = sandbox.requests.length;
			const gap = await host.tick();
			checks.push({ gap, requests: sandbox.requests.length - before });
		}
		// Each failing check: one request, a wait of 60 s inside it (the transport's cap) and its retry;
		// then 120 s at least before the next check (before: 60 s, the cap again).
		expect(checks.map((c) => c.requests)).toEqual([2, 2, 2]);
		for (const { gap } of checks.slice(1)) expect(gap).toBeGreaterThanOrEqual(60_000 + 120_000);
		sandbox.clearFaults();
	});

	test('minutes and hours are honoured; under 5 seconds is read as 5', async () => {
		host = await createTriggerHost({ credentials, parameters: every(2, 'minutes') }).start();
		expect(await host.tick()).toBe(120_000);
		await host.stop();
		host = await createTriggerHost({ credentials, parameters: every(1, 'hours') }).start();
		expect(await host.tick()).toBe(3_600_000);
		await host.stop();
		host = await createTriggerHost({ credentials, parameters: every(1) }).start();
		expect(await host.tick()).toBe(5000);
	});
});

describe('Messaging Trigger v2: deliveries', () => {
	test('new messages: one execution per check, oldest first, each once; the delivery stays in flight until its execution ends', async () => {
		send('old');
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		advanceServiceClock();
		send('new 1');
		send('new 2');
		advanceServiceClock();
		send('new 3', { from: 'ct_bob', conversation: 'conv_00000002' });
		await host.tick();
		expect(host.executions).toHaveLength(1);
		expect(texts(host.executions[0].json)).toEqual(['new 1', 'new 2', 'new 3']);
		expect(host.executions[0].json[0]).not.toHaveProperty('redelivery');
		expect(host.executions[0].key).toMatch(/^messaging-trigger:wf-trigger:node-trigger-1:[^:]+:1$/);
		// Written before the emit, and saved by it: the delivery is in flight in the database.
		expect(host.savedState().deliveries.inFlight.map((d) => d.keys)).toEqual([
			['msg_00000002', 'msg_00000003', 'msg_00000004'],
		]);
		await host.tick();
		expect(host.executions).toHaveLength(1);
		host.executions[0].end('success');
		await host.tick();
		expect(host.state().deliveries.inFlight).toEqual([]);
		expect(host.executions).toHaveLength(1);
	});

	test('a check with nothing new, and deliveries in flight, is still one request', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('a');
		await host.tick();
		sandbox.clearRequests();
		await host.tick();
		await host.tick();
		expect(sandbox.requests).toHaveLength(2);
	});

	test("an execution that fails on a node error is settled, not emitted again (n8n's usual semantics)", async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('breaks the workflow');
		await host.tick();
		host.executions[0].end('nodeError');
		for (let i = 0; i < 3; i++) await host.tick();
		expect(host.executions).toHaveLength(1);
		expect(host.state().deliveries).toEqual({ version: 2, inFlight: [], redeliver: [] });
	});

	test('a stopped (cancelled by hand) execution is settled too', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('x');
		await host.tick();
		host.executions[0].end('stopped');
		await host.tick();
		await host.tick();
		expect(host.executions).toHaveLength(1);
	});

	test.each([
		['crashed', 'crashed'],
		['killed worker (queue mode: status error, no node)', 'workerKilled'],
		['never started (donePromise rejects)', 'notStarted'],
		['cancelled by a shutdown', 'shutdown'],
	])(
		'an execution that %s is emitted again, marked, with a new deduplication key',
		async (_name, kind) => {
			host = await createTriggerHost({ credentials, parameters: every(5) }).start();
			send('important');
			await host.tick();
			host.executions[0].end(kind);
			await host.tick();
			expect(host.executions).toHaveLength(2);
			const [first, second] = host.executions;
			expect(second.json).toEqual([
				{
					...first.json[0],
					redelivery: true,
					redeliveryReason: 'previousAttemptFailed',
					attempt: 2,
				},
			]);
			expect(second.key).toBe(first.key.replace(/:1$/, ':2'));
			second.end('success');
			await host.tick();
			await host.tick();
			expect(host.executions).toHaveLength(2);
			expect(host.state().deliveries.inFlight).toEqual([]);
		},
	);

	test(`attempts are bounded: after the last one is lost the messages are reported, not retried, not dropped silently`, async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('doomed');
		await host.tick();
		for (let attempt = 1; attempt <= 5; attempt++) {
			expect(host.executions).toHaveLength(attempt);
			const last = host.executions[attempt - 1];
			expect(last.json[0].message).toBe('doomed');
			if (attempt > 1) expect(last.json[0]).toMatchObject({ redelivery: true, attempt });
			if (attempt === 5) expect(last.json[0].finalAttempt).toBe(true);
			last.end('crashed');
			await host.tick();
		}
		expect(host.executions).toHaveLength(5);
		expect(host.reported).toHaveLength(1);
		expect(host.reported[0].message).toBe(
			'1 message(s) were not delivered: the executions of all 5 attempts were lost',
		);
		expect(host.reported[0].description).toContain('msg_00000001');
		expect(host.state().deliveries).toEqual({ version: 2, inFlight: [], redeliver: [] });
	});
});

describe('Messaging Trigger v2 on n8n before 2.20 (an emit without deduplication keys)', () => {
	const warning = expect.stringContaining('Messaging Trigger version 2 needs n8n 2.20 or newer');
	test("activation says so once in n8n's log, and still delivers", async () => {
		host = createTriggerHost({ credentials, parameters: every(5) });
		await host.start({ keylessEmit: true });
		send('hello');
		await host.tick();
		expect(host.logs.filter((line) => /needs n8n 2\.20/.test(line))).toEqual([
			`warn: ${UNSUPPORTED}`,
		]);
		expect(host.executions.map((e) => texts(e.json))).toEqual([['hello']]);
	});
	test('on n8n that keeps keys: no such warning', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		expect(host.logs).not.toContainEqual(warning);
	});
});

describe('Messaging Trigger v2: Fetch Test Event', () => {
	test('emits the newest message through manualTriggerFunction; neither reads nor writes the state', async () => {
		jest.useRealTimers();
		const empty = await fetchTestEvent({ credentials, parameters: every(5) });
		expect(empty.error.message).toBe('There are no messages yet');
		expect(empty.error.description).toBe('Send a message, then fetch the test event again.');
		send('first');
		advanceServiceClock();
		send('second');
		const { items, error, staticData } = await fetchTestEvent({
			credentials,
			parameters: every(5),
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.message)).toEqual(['second']);
		expect(staticData['node:Messaging Trigger']).toBeUndefined();
		const inConversation = await fetchTestEvent({
			credentials,
			parameters: { ...every(5), conversationId: byId('conv_00000002') },
		});
		expect(inConversation.error.message).toBe(
			'There are no messages in conversation conv_00000002 yet',
		);
	});
});
