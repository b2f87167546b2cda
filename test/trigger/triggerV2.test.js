'use strict';
/**
 * Version 2 (trigger()) through n8n-core's TriggerContext in a simulated n8n (test/harness/n8n.js):
 * the schedule, deliveries settled by donePromise, redelivery of lost executions, restarts.
 */
const {
	createTriggerHost,
	fetchTestEvent,
	runMessagingNode,
	TRIGGER_FAKE_TIMERS,
} = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');
const {
	UNSUPPORTED_N8N_WARNING: UNSUPPORTED,
} = require('../../dist/nodes/MessagingTrigger/v2/checkLoop');

let sandbox;
let credentials;
let now; // the service's clock, in milliseconds
let host;

async function setup(options = {}) {
	now = Math.floor(Date.now() / 1000) * 1000;
	({ sandbox, credentials } = await startSandbox({ seed: 'none', clock: () => now, ...options }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_bob', username: 'bob' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.createConversation({ contact_id: 'ct_bob' }); // conv_00000002
}

beforeEach(async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	await setup();
});
afterEach(async () => {
	if (host?.process) await host.stop();
	host = undefined;
	jest.useRealTimers();
	await sandbox.stop();
});

const send = (text, { from = 'ct_ann', conversation = 'conv_00000001', createdAt } = {}) =>
	sandbox.store.sendMessage(from, { conversation_id: conversation, message: text }, { createdAt });
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
		const token = credentials.accessToken;
		credentials.accessToken = 'revoked'; // 401: not retried by the transport, the check fails at once
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
		credentials.accessToken = token;
		advanceServiceClock();
		send('after the outage');
		await host.tick(); // the last backoff wait, then a successful check
		expect(texts(host.delivered())).toEqual(['after the outage']);
		expect(await host.tick()).toBe(5000);
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

describe('Messaging Trigger v2: restarts', () => {
	test('stop n8n, messages arrive, start: each new message delivered once', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('before');
		await host.tick();
		host.executions[0].end('success');
		advanceServiceClock();
		send('settles the first');
		await host.tick(); // this emit saves the settlement of the first delivery
		host.executions[1].end('success');
		await new Promise((resolve) => setImmediate(resolve)); // the execution's end reaches the trigger
		await host.stop();
		advanceServiceClock();
		send('while stopped 1');
		send('while stopped 2');
		await host.start();
		const afterRestart = host.executions.filter((e) => e.processNumber === 2);
		// The last settlement was saved by an emit of nothing under its own key (dropped as a duplicate):
		// nothing comes again.
		expect(afterRestart.map((e) => texts(e.json))).toEqual([
			['while stopped 1', 'while stopped 2'],
		]);
		expect(afterRestart[0].json[0]).not.toHaveProperty('redelivery');
	});

	test('n8n killed while executions run: after the restart they are emitted again at once, marked', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('in flight when n8n died');
		await host.tick();
		const [first] = host.executions;
		await host.crash(); // the execution never reports back
		advanceServiceClock();
		send('while down');
		const restartedAt = Date.now();
		await host.start();
		await host.idle(host.checksDone); // the check that the dropped repeat calls for
		// The attempt is repeated under its own key first: n8n drops it, as its execution exists, so it counts.
		expect(host.duplicates).toEqual([first.key]);
		const redelivered = host.executions.filter((e) => e.processNumber === 2);
		expect(
			redelivered.map((e) => e.json.map((j) => [j.message, j.redelivery ?? false, j.attempt ?? 1])),
		).toEqual([[['while down', false, 1]], [['in flight when n8n died', true, 2]]]);
		expect(redelivered[1].key).toBe(first.key.replace(/:1$/, ':2'));
		// n8n tells a trigger nothing about how the dropped repeat's execution ended: the items say so.
		expect(redelivered[1].json[0].redeliveryReason).toBe('previousOutcomeUnknown');
		expect(Date.now() - restartedAt).toBe(0); // not one interval later
	});

	test('the auto-reply example through a crash after its reply: the redelivered message is not answered twice', async () => {
		const example = require('../../examples/auto-reply.json');
		const replyNode = example.nodes.find((n) => n.name === 'Reply');
		// The example's Reply, run on an execution's items as n8n would run the workflow.
		const autoReply = async (execution) =>
			await runMessagingNode({
				parameters: replyNode.parameters,
				typeVersion: replyNode.typeVersion,
				input: execution.json,
				credentials,
			});
		const replies = () =>
			sandbox.store
				.listMessages({ conversation_id: 'conv_00000001' })
				.filter((m) => m.message.startsWith('Hi ann'));
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('help please');
		await host.tick();
		const first = await autoReply(host.executions[0]);
		expect(first.items[0].json).not.toHaveProperty('alreadySent');
		await host.crash(); // the execution ended, but n8n died before the trigger saved that
		await host.start();
		await host.idle(host.checksDone);
		const redelivered = host.executions.at(-1);
		expect(redelivered.json[0]).toMatchObject({
			redelivery: true,
			redeliveryReason: 'previousOutcomeUnknown',
		});
		const again = await autoReply(redelivered);
		expect(again.items[0].json).toMatchObject({ id: first.items[0].json.id, alreadySent: true });
		expect(replies()).toHaveLength(1);
	});

	test('graceful stop while executions run: the stop waits for them and saves their end, nothing comes again', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('one');
		await host.tick();
		advanceServiceClock();
		send('two');
		await host.tick();
		const [first, second] = host.executions;
		const stopping = host.stop();
		const savesBefore = host.saves;
		first.end('success');
		await new Promise((resolve) => setImmediate(resolve));
		expect(host.saves).toBe(savesBefore); // saved once, when the wait is over
		second.end('success');
		await stopping;
		expect(host.savedState().deliveries).toEqual({ version: 2, inFlight: [], redeliver: [] });
		expect(host.duplicates).toEqual([second.key]); // the save: an emit of nothing under an existing key
		await host.start();
		await host.tick();
		expect(host.executions).toHaveLength(2);
	});

	test('graceful stop: an execution still running after the wait is left in flight and comes again, marked unknown', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('slow');
		await host.tick();
		const stoppedAt = Date.now();
		await host.stop();
		expect(Date.now() - stoppedAt).toBe(25_000); // bounded, under n8n's 30 s graceful shutdown
		expect(host.savedState().deliveries.inFlight).toHaveLength(1);
		await host.start();
		await host.idle(host.checksDone);
		expect(host.executions.map((e) => e.json[0].redeliveryReason)).toEqual([
			undefined,
			'previousOutcomeUnknown',
		]);
	});

	test('n8n killed within milliseconds of each emit, before the execution existed: attempts are not spent, the messages come once', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('emitted into a dying process');
		host.process.dieAtEmit = true;
		await host.tick();
		// Static data was saved with the delivery in flight, and no execution exists; then 6 more kills alike.
		expect(host.savedState().deliveries.inFlight).toHaveLength(1);
		for (let kill = 0; kill < 6; kill++) {
			await host.crash();
			await host.start({ dieAtEmit: true });
		}
		expect(host.executions).toEqual([]);
		await host.crash();
		await host.start();
		expect(
			host.executions.map((e) => e.json.map((j) => [j.message, j.redelivery, j.attempt])),
		).toEqual([[['emitted into a dying process', true, 1]]]);
		expect(host.duplicates).toEqual([]);
		host.executions[0].end('success');
		await host.tick();
		expect(host.reported).toEqual([]);
		expect(host.state().deliveries).toEqual({ version: 2, inFlight: [], redeliver: [] });
	});

	test('a dropped repeat does not cut short the backoff of a failed check', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('in flight when n8n died');
		await host.tick();
		await host.crash();
		// The restart's check lists the lost delivery's conversation and repeats the delivery (dropped: its
		// execution exists), then its own listing fails. (A 400: not repeated by the transport, so the
		// activation's check fails at once.)
		const list = { method: 'GET', path: '/v1/messages' };
		sandbox.failNext({ match: list }, { match: list, status: 400 });
		await host.start();
		expect(host.duplicates).toHaveLength(1);
		const second = () => host.executions.filter((e) => e.processNumber === 2);
		await jest.advanceTimersByTimeAsync(9_000); // the backoff doubles the interval: 10 s at least
		expect(second()).toEqual([]);
		await host.tick();
		expect(second().map((e) => e.json[0].attempt)).toEqual([2]);
	});

	test('the last attempt lost with the process is repeated, and reported only once n8n says it had started', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('doomed');
		await host.tick();
		for (let attempt = 1; attempt < 5; attempt++) {
			host.executions[attempt - 1].end('crashed');
			await host.tick();
		}
		expect(host.executions.map((e) => e.json[0].attempt ?? 1)).toEqual([1, 2, 3, 4, 5]);
		await host.crash(); // with attempt 5 in flight
		await host.start();
		await host.idle(host.checksDone);
		expect(host.duplicates).toEqual([host.executions[4].key]);
		expect(host.executions).toHaveLength(5);
		expect(host.reported.map((r) => r.message)).toEqual([
			'1 message(s) were not delivered: the executions of all 5 attempts were lost',
		]);
	});

	test('a lost delivery whose messages cannot be read again waits for the next check; new messages go out now', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('in flight when n8n died');
		await host.tick();
		await host.crash();
		advanceServiceClock();
		send('while down');
		// After the restart the lost delivery's messages are listed again: that listing fails once.
		// (A 400: not repeated by the transport, so the listing fails during the activation's check.)
		sandbox.failNext({ match: { method: 'GET', path: '/v1/messages' }, status: 400 });
		await host.start();
		let second = host.executions.filter((e) => e.processNumber === 2);
		expect(second.map((e) => texts(e.json))).toEqual([['while down']]);
		await host.tick();
		second = host.executions.filter((e) => e.processNumber === 2);
		expect(second.map((e) => e.json.map((j) => [j.message, j.redelivery ?? false]))).toEqual([
			[['while down', false]],
			[['in flight when n8n died', true]],
		]);
	});

	test('killed between writing the state and the emit: the saved state has neither, the messages come once', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		const savedBefore = JSON.stringify(host.saved);
		send('listed just before the kill');
		// The kill lands after the check wrote static data in memory but before n8n saved it.
		host.process.alive = false;
		await host.tick();
		expect(JSON.stringify(host.saved)).toBe(savedBefore);
		await host.crash();
		await host.start();
		expect(host.executions.map((e) => texts(e.json))).toEqual([['listed just before the kill']]);
	});

	test('a workflow saved while its executions run: the new activation waits for them instead of emitting again', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('running during the re-activation');
		await host.tick();
		// Re-activation in the same process: n8n calls closeFunction, then trigger() again; the module stays loaded.
		await host.stop();
		await host.start({ activation: 'update', sameProcess: true });
		expect(host.executions).toHaveLength(1);
		host.executions[0].end('success');
		await host.tick();
		await host.tick();
		expect(host.executions).toHaveLength(1);
		expect(host.state().deliveries.inFlight).toEqual([]);
	});

	test('... and when such an execution is lost, the new activation emits it again', async () => {
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		send('running during the re-activation');
		await host.tick();
		await host.stop();
		await host.start({ activation: 'update', sameProcess: true });
		host.executions[0].end('crashed');
		await host.tick();
		expect(host.executions.map((e) => e.json[0].attempt ?? 1)).toEqual([1, 2]);
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
