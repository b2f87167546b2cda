'use strict';
/**
 * Version 2 (trigger()) through n8n-core's TriggerContext in a simulated n8n (test/harness/n8n.js): n8n stopped,
 * killed or saving the workflow while executions run, and lost executions delivered again, once.
 */
const { createTriggerHost, runMessagingNode, TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startTriggerSandbox, triggerHelpers } = require('../harness/triggerSuite');

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
