'use strict';
/**
 * Stored data written by earlier builds keeps working. Each fixture of test/fixtures/trigger/ is the
 * node's static data as the build before keys became data wrote it (v1-first-build.json: as the first
 * builds wrote it, before the unit and the order were remembered); it is loaded into a trigger whose
 * service went through the same history (histories.js), and the trigger carries on from it: nothing
 * delivered comes again, what was in flight is emitted again as a marked redelivery read by its key,
 * and the ledger is written in today's shape. The same assertions hold for the build that wrote them.
 */
const fs = require('node:fs');
const path = require('node:path');
const { HISTORIES, REPLAY, START, startWorld } = require('../fixtures/trigger/histories');
const { createPollingTrigger, createTriggerHost, TRIGGER_FAKE_TIMERS } = require('../harness/n8n');

const NODE = 'node:Messaging Trigger';
const fixture = (name) =>
	JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/trigger', `${name}.json`), 'utf8'));

let world;
let host;
afterEach(async () => {
	if (host?.process) await host.stop();
	host = undefined;
	jest.useRealTimers();
	await world?.sandbox.stop();
	world = undefined;
});

/** The service as the fixture's history left it, on the same clock. */
async function replay(history) {
	const { world: options, history: steps } = HISTORIES[history];
	world = await startWorld(options);
	await steps(world, REPLAY);
	return world;
}

describe('version 1: the next poll delivers only what is new', () => {
	test.each([
		['v1-newest-first', 'v1-newest-first'],
		['v1-first-build', 'v1-newest-first'],
		['v1-oldest-first', 'v1-oldest-first'],
	])('%s', async (name, history) => {
		jest.useFakeTimers({ now: START, doNotFake: ['nextTick', 'setImmediate', 'setTimeout'] });
		await replay(history);
		const trigger = createPollingTrigger({ credentials: world.credentials, parameters: {} });
		trigger.workflow.staticData[NODE] = fixture(name);
		world.advance(1);
		world.send('new');
		const [items] = await trigger.poll();
		expect(items.map((item) => item.json.message)).toEqual(['new']);
		expect(await trigger.poll()).toBeNull();
		const stored = /** @type {Record<string, any>} */ (trigger.state());
		expect(stored.state.recent.map(([id]) => id)).toContain(items[0].json.id);
	});
});

/** A version 2 activation in a new process on the fixture's static data, after its first check. */
async function activate(name) {
	jest.useFakeTimers({ ...TRIGGER_FAKE_TIMERS, now: START });
	const { parameters } = HISTORIES[name];
	await replay(name);
	// The service's Date header is this clock: where the service's clock stood when n8n was killed.
	jest.setSystemTime(world.now());
	host = createTriggerHost({
		credentials: world.credentials,
		parameters: { interval: 5, unit: 'seconds', ...parameters },
	});
	host.saved = { [NODE]: fixture(name) };
	await host.start();
	await host.idle(host.checksDone);
}

const marksOf = (json) => [json.redelivery, json.redeliveryReason, json.attempt];

/** Every execution ends well; then nothing is emitted again, and the ledger is empty in today's shape. */
async function allSettle() {
	const before = host.executions.length;
	for (const execution of host.executions) execution.end('success');
	await host.tick();
	expect(host.executions).toHaveLength(before);
	expect(host.state().deliveries).toMatchObject({ inFlight: [], redeliver: [] });
}

describe('version 2: what was in flight is emitted again, read by its key', () => {
	test('New Message: both deliveries in flight when n8n was killed', async () => {
		await activate('v2-new-messages');
		expect(host.executions.map((e) => e.json.map((j) => [j.message, ...marksOf(j)]))).toEqual([
			[
				['a', true, 'previousOutcomeUnknown', 2],
				['b', true, 'previousOutcomeUnknown', 2],
			],
			[['c', true, 'previousOutcomeUnknown', 1]],
		]);
		await allSettle();
		world.advance(1);
		world.send('d');
		await host.tick();
		expect(host.executions.at(-1).json.map((j) => [j.message, j.redelivery])).toEqual([
			['d', undefined],
		]);
	});

	test('every event: a new message, a new conversation, an edit, a reaction added and one removed', async () => {
		await activate('v2-events');
		const [all, removed] = host.executions;
		expect(host.executions).toHaveLength(2);
		expect(
			all.json.map((j) => [j.event, (j.message ?? j.conversation).id, j.reaction, j.reactor]),
		).toEqual([
			['newMessage', 'msg_00000003', undefined, undefined],
			['newConversation', 'conv_00000002', undefined, undefined],
			['messageEdited', 'msg_00000001', undefined, undefined],
			['reactionAdded', 'msg_00000002', '✅', 'ct_bob'],
		]);
		for (const json of all.json) expect(marksOf(json)).toEqual([true, 'previousOutcomeUnknown', 2]);
		expect(all.json[0].message.message).toBe('new one');
		expect(all.json[2]).toMatchObject({ after: { message: 'hello' } });
		expect(removed.json).toEqual([
			expect.objectContaining({
				event: 'reactionRemoved',
				message: expect.objectContaining({ id: 'msg_00000002' }),
				reaction: '✅',
				reactor: 'ct_bob',
				redelivery: true,
				redeliveryReason: 'previousAttemptFailed',
				attempt: 2,
			}),
		]);
		await allSettle();
	});

	test('a ledger without bounds (keys as data, git 4c883f6): each key read by itself, as that build did', async () => {
		await activate('v2-keys-as-data');
		const reads = world.sandbox.requests.filter((r) =>
			/^\/v1\/(messages|conversations)\/./.test(r.path),
		);
		expect(reads.map((r) => r.path)).toEqual([
			'/v1/messages/msg_00000003',
			'/v1/conversations/conv_00000002',
			'/v1/messages/msg_00000001',
			'/v1/messages/msg_00000002',
			'/v1/messages/msg_00000002',
		]);
		expect(host.executions.map((e) => e.json.map((j) => [j.event, ...marksOf(j)]))).toEqual([
			[
				['newMessage', true, 'previousOutcomeUnknown', 2],
				['newConversation', true, 'previousOutcomeUnknown', 2],
				['messageEdited', true, 'previousOutcomeUnknown', 2],
				['reactionAdded', true, 'previousOutcomeUnknown', 2],
			],
			[['reactionRemoved', true, 'previousOutcomeUnknown', 1]],
		]);
		expect(host.executions[0].json[2]).toMatchObject({ after: { message: 'hello' } });
		// The deliveries made from now on record where their messages are.
		world.advance(1);
		const later = world.send('later');
		await host.tick();
		expect(host.state().deliveries.inFlight.at(-1)).toMatchObject({
			keys: [later.id],
			bounds: {
				oldest: later.created_at,
				newest: later.created_at,
				conversations: ['conv_00000001'],
			},
		});
		await allSettle();
	});

	test('Group Bursts: the burst in flight comes again as one item; the one held goes out when quiet', async () => {
		await activate('v2-bursts');
		expect(host.executions).toHaveLength(1);
		expect(host.executions[0].json).toEqual([
			expect.objectContaining({
				event: 'messageBurst',
				text: 'one\ntwo',
				count: 2,
				firstMessageId: 'msg_00000001',
				lastMessageId: 'msg_00000002',
				redelivery: true,
				redeliveryReason: 'previousOutcomeUnknown',
				attempt: 1,
			}),
		]);
		host.executions[0].end('success');
		world.advance(11);
		jest.setSystemTime(Date.now() + 11_000);
		await host.tick();
		expect(host.executions.at(-1).json).toEqual([
			expect.objectContaining({ event: 'messageBurst', text: 'three', count: 1 }),
		]);
		expect(host.executions.at(-1).json[0]).not.toHaveProperty('redelivery');
		await allSettle();
	});
});
