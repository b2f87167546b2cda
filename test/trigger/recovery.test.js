'use strict';
/**
 * Recovery by listing (version 2): after a crash, the lost deliveries' messages are found again by listing
 * pages where their deliveries recorded them, not by one request per event; what a listing does not find is
 * read by itself, and what is gone is logged and left out. Through n8n-core's TriggerContext
 * (test/harness/n8n.js) against the sandbox, in both list orders and both timestamp units.
 */
const { createTriggerHost, TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox } = require('../harness/sandbox');

let sandbox;
let credentials;
let now; // the service's clock, in milliseconds
let host;
let toUnit;

async function setup({ order = 'newest_first', unit = 's' } = {}) {
	now = Math.floor(Date.now() / 1000) * 1000;
	toUnit = (ms) => (unit === 'ms' ? ms : Math.floor(ms / 1000));
	({ sandbox, credentials } = await startSandbox({
		seed: 'none',
		clock: () => now,
		order,
		unit,
		credentials: { ownContactId: 'ct_me' },
	}));
	for (const id of ['ct_ann', 'ct_bob']) sandbox.store.addContact({ id, username: id.slice(3) });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	sandbox.store.createConversation({ contact_id: 'ct_bob' }); // conv_00000002
}

beforeEach(() => jest.useFakeTimers(TRIGGER_FAKE_TIMERS));
afterEach(async () => {
	if (host?.process) await host.stop();
	host = undefined;
	jest.useRealTimers();
	await sandbox.stop();
});

/** @param {string} text @param {{ from?: string, conversation?: string, atMs?: number }} [options] */
const send = (text, { from = 'ct_ann', conversation = 'conv_00000001', atMs } = {}) =>
	sandbox.store.sendMessage(
		from,
		{ conversation_id: conversation, message: text },
		atMs === undefined ? {} : { createdAt: toUnit(atMs) },
	);
const parameters = (events = ['newMessage'], options = {}) => ({
	interval: 5,
	unit: 'seconds',
	events,
	options: { pageSize: 100, ...options },
});
const lists = () => sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/messages');
const readsByKey = () =>
	sandbox.requests.filter((r) => /^\/v1\/(messages|conversations)\/./.test(r.path));
const marks = (json) => [json.redelivery, json.redeliveryReason, json.attempt];

/** n8n killed with everything in flight, started again: the first check after the restart, its requests kept. */
async function crashAndRestart() {
	await host.crash();
	sandbox.clearRequests();
	await host.start();
}

describe.each([
	['newest_first', 's'],
	['newest_first', 'ms'],
	['oldest_first', 's'],
	['oldest_first', 'ms'],
])('%s, unit %s', (order, unit) => {
	test('1,000 lost events come back from about 1,000 / page size list requests, none read by itself', async () => {
		await setup({ order, unit });
		// A history older than the look-back window (an oldest-first trigger keeps a cursor in it).
		for (let i = 0; i < 300; i++) send(`old ${i}`, { atMs: now - 600_000 + i * 1000 });
		host = await createTriggerHost({ credentials, parameters: parameters() }).start();
		const start = now + 1000;
		const sent = Array.from({ length: 1000 }, (_, i) =>
			send(`m${i}`, { atMs: start + i * 10, conversation: `conv_0000000${1 + (i % 2)}` }),
		);
		now = start + 11_000;
		await host.tick();
		expect(host.executions).toHaveLength(10);
		expect(host.delivered()).toHaveLength(1000);

		await crashAndRestart();
		expect(readsByKey()).toEqual([]);
		// The recovery's walk(s) (the check lists nothing new: 1,000 events are in flight), at most a page
		// more than 1,000 / 100 (newest first, per conversation: the page that shows it went past them).
		expect(lists().length).toBeLessThanOrEqual(1000 / 100 + 1);
		// Each attempt is repeated under its own key (n8n drops it: its execution exists), then the next one goes out.
		expect(host.duplicates).toHaveLength(10);
		await host.tick();
		const again = host.executions.slice(10).flatMap((e) => e.json);
		expect(again.map((j) => j.id)).toEqual(sent.map((m) => m.id));
		for (const json of again) expect(marks(json)).toEqual([true, 'previousOutcomeUnknown', 2]);
	});
});

test('two conversations: each listed down to its lost messages, not the whole account', async () => {
	await setup();
	host = await createTriggerHost({ credentials, parameters: parameters() }).start();
	now += 1000;
	for (let i = 0; i < 150; i++) send(`ann ${i}`, { atMs: now + i * 10 });
	for (let i = 0; i < 150; i++)
		send(`bob ${i}`, { atMs: now + i * 10, conversation: 'conv_00000002' });
	now += 2000;
	await host.tick();
	await host.crash();
	// While n8n is down a third conversation gets busy: an unfiltered listing would page through it first.
	const busy = sandbox.store.createConversation({ contact_id: 'ct_bob' }).id;
	for (let i = 0; i < 500; i++) send(`busy ${i}`, { conversation: busy });
	sandbox.clearRequests();
	await host.start();
	expect(readsByKey()).toEqual([]);
	const walks = lists().filter((r) => r.query.includes('conversation_id'));
	expect(walks.map((r) => new URLSearchParams(r.query).get('conversation_id'))).toEqual([
		'conv_00000001',
		'conv_00000001',
		'conv_00000002',
		'conv_00000002',
	]);
	await host.tick();
	const again = host.executions.slice(3).flatMap((e) => e.json);
	expect(again.filter((j) => j.redelivery)).toHaveLength(300);
});

test('a message deleted while n8n was down: logged and left out, the others come again', async () => {
	await setup();
	host = await createTriggerHost({ credentials, parameters: parameters() }).start();
	now += 1000;
	const [, deleted] = ['a', 'b', 'c'].map((text) => send(text));
	await host.tick();
	await host.crash();
	sandbox.store.deleteMessage(deleted.id);
	sandbox.clearRequests();
	await host.start();
	// The listing did not find it; read by itself, it is gone (404).
	expect(readsByKey().map((r) => r.path)).toEqual([`/v1/messages/${deleted.id}`]);
	expect(host.logs).toContainEqual(
		`warn: Messaging Trigger: what ${deleted.id} names is gone; it is not delivered again`,
	);
	await host.tick();
	expect(host.executions.at(-1).json.map((j) => [j.message, ...marks(j)])).toEqual([
		['a', true, 'previousOutcomeUnknown', 2],
		['c', true, 'previousOutcomeUnknown', 2],
	]);
});

test('oldest first, the cursor the listing started after deleted while n8n was down: each message read by itself', async () => {
	await setup({ order: 'oldest_first' });
	// Older than the look-back window, and spread wider than it: the first check keeps a cursor among them.
	for (let i = 0; i < 10; i++) send(`old ${i}`, { atMs: now - 600_000 + i * 10_000 });
	host = await createTriggerHost({ credentials, parameters: parameters() }).start();
	now += 1000;
	const sent = ['a', 'b', 'c'].map((text) => send(text));
	await host.tick();
	const { after } = host.savedState().deliveries.inFlight[0].bounds;
	expect(after).toMatch(/^msg_/);
	await host.crash();
	sandbox.store.deleteMessage(after);
	sandbox.clearRequests();
	await host.start();
	// The service refuses the cursor (400): the listing finds nothing, the keys are read by id.
	expect(readsByKey().map((r) => r.path)).toEqual(sent.map((m) => `/v1/messages/${m.id}`));
	await host.tick();
	expect(host.executions.at(-1).json.map((j) => [j.message, ...marks(j)])).toEqual([
		['a', true, 'previousOutcomeUnknown', 2],
		['b', true, 'previousOutcomeUnknown', 2],
		['c', true, 'previousOutcomeUnknown', 2],
	]);
});

test('edits and reactions are read from the listed message; a new conversation by itself', async () => {
	await setup();
	const first = send('helo');
	const second = send('I need help');
	host = await createTriggerHost({
		credentials,
		parameters: parameters([
			'newMessage',
			'messageEdited',
			'reactionAdded',
			'reactionRemoved',
			'newConversation',
		]),
	}).start();
	now += 1000;
	sandbox.store.updateMessage(first.id, { message: 'hello' });
	sandbox.store.updateMessage(second.id, { reactions: { '✅': ['ct_bob'] } });
	const conversation = sandbox.store.createConversation({ contact_id: 'ct_bob' });
	send('new one', { from: 'ct_bob', conversation: conversation.id });
	await host.tick();
	const events = host.executions[0].json.map((j) => j.event);
	await crashAndRestart();
	expect(readsByKey().map((r) => r.path)).toEqual([`/v1/conversations/${conversation.id}`]);
	await host.tick();
	const again = host.executions.at(-1).json;
	expect(again.map((j) => j.event)).toEqual(events);
	expect(again.find((j) => j.event === 'messageEdited')).toMatchObject({
		after: { message: 'hello' },
		redelivery: true,
	});
	expect(again.find((j) => j.event === 'reactionAdded')).toMatchObject({
		reaction: '✅',
		reactor: 'ct_bob',
		message: expect.objectContaining({ id: second.id }),
	});
});

test('a burst in flight comes again from the listing, its messages between included', async () => {
	await setup();
	host = await createTriggerHost({
		credentials,
		parameters: parameters(['newMessage'], { groupBursts: true, quietPeriod: 10, maxWait: 60 }),
	}).start();
	for (const text of ['one', 'two', 'three']) {
		now += 1000;
		send(text);
		if (text === 'two') send('(bob, between)', { from: 'ct_bob' });
	}
	// Held while the sender may go on; the service's clock keeps pace with the checks.
	for (let tick = 0; tick < 5 && host.executions.length === 0; tick++) {
		now += 5000;
		await host.tick();
	}
	const bursts = (json) =>
		json.map((j) => [j.text, j.count, j.redelivery ?? false, j.attempt ?? 1]);
	expect(bursts(host.executions[0].json)).toEqual([
		['one\ntwo\nthree', 3, false, 1],
		['(bob, between)', 1, false, 1],
	]);
	await crashAndRestart();
	expect(readsByKey()).toEqual([]);
	await host.tick();
	expect(bursts(host.executions.at(-1).json)).toEqual([
		['one\ntwo\nthree', 3, true, 2],
		['(bob, between)', 1, true, 2],
	]);
});
