'use strict';
/**
 * Version 2 triggers each on one conversation of one account, in one n8n process (n8n-core's
 * TriggerContext, test/harness/triggerGroup.js): once their service shows it lists newest first, they
 * check on the account listing's tick and read its first page between them, each taking its own
 * conversation's messages, and list their conversation themselves whenever that page does not hold
 * everything they may not know (a busy account, a backlog, a service that lists some conversations apart).
 */
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');
const { createTriggerGroup } = require('../harness/triggerGroup');

const COUNT = 6;
/** @type {any} */
let sandbox;
/** @type {any} */
let group;
/** @type {Map<string, string[]>} conversation -> ids of the messages sent into it, in order */
let sent;

/** @param {Record<string, unknown>} [options] sandbox options */
async function setUp(options = {}) {
	let credentials;
	({ sandbox, credentials } = await startSandbox({
		seed: 'none',
		clock: () => Date.now(),
		...options,
	}));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sent = new Map();
	for (let i = 0; i < COUNT; i++) {
		const { id } = sandbox.store.createConversation({ contact_id: 'ct_ann' });
		sent.set(id, []);
		// Two messages each before the triggers start, a minute apart: their first check sees the list's order.
		for (const ago of [180, 120])
			sandbox.store.sendMessage(
				'ct_ann',
				{ conversation_id: id, message: `${ago} s before` },
				{ createdAt: sandbox.store.now() - ago },
			);
	}
	group = createTriggerGroup({ sandbox, credentials });
}
beforeEach(() => jest.useFakeTimers(TRIGGER_FAKE_TIMERS));
afterEach(async () => {
	await group.stopAll();
	jest.useRealTimers();
	await sandbox.stop();
});

/** @param {number} i */
const conversation = (i) => `conv_0000000${i + 1}`;
/** @param {number} i @param {string} [text] */
const send = (i, text = `to ${i}`) => {
	const message = sandbox.store.sendMessage('ct_ann', {
		conversation_id: conversation(i),
		message: text,
	});
	sent.get(conversation(i))?.push(message.id);
};
/**
 * @param {number} count triggers, the i-th on conversation i
 * @param {Record<string, unknown>} [options] the trigger's options
 * @param {Record<string, unknown>} [parameters] more of its parameters
 */
const startTriggers = async (count, options = {}, parameters = {}) =>
	await group.start(count, (/** @type {number} */ i) => ({
		interval: 5,
		unit: 'seconds',
		conversationId: byId(conversation(i)),
		options,
		...parameters,
	}));
const listRequests = () =>
	sandbox.requests.filter(
		(/** @type {any} */ r) => r.method === 'GET' && r.path === '/v1/messages',
	);
const accountListings = () =>
	listRequests().filter((/** @type {any} */ r) => !r.query.includes('conversation_id'));
/** @param {any} host @returns {string[]} the ids it delivered, in order */
const deliveredBy = (host) =>
	host.executions.flatMap((/** @type {any} */ e) =>
		e.json.map((/** @type {any} */ j) => (j.event === 'newMessage' ? j.message.id : j.id)),
	);
/** Four rounds of a message into each of the first three conversations, 5 s apart; then the last checks. */
async function sendRounds() {
	for (let t = 0; t < 4; t++) {
		for (let i = 0; i < 3; i++) send(i);
		await group.runFor(5_000);
	}
	await group.runFor(10_000);
}
/** @param {any} host @returns {string[]} its logs saying it stopped reading the account's listing */
const stoppedReadingAccount = (host) =>
	host.logs.filter((/** @type {string} */ l) => /account's listing is not used/.test(l));
/** Each trigger delivered exactly the messages sent into its conversation since it started, once, in order. */
function expectEachDeliveredItsOwn() {
	group.hosts.forEach((/** @type {any} */ host, /** @type {number} */ i) => {
		expect(deliveredBy(host)).toEqual(sent.get(conversation(i)));
		expect(host.duplicates).toEqual([]);
		expect(host.emitErrors).toEqual([]);
	});
}

describe('triggers each on one conversation of a newest-first service', () => {
	test('6 triggers at 5 s, idle, make 1 list request per tick between them (the account listing), not 6', async () => {
		await setUp();
		await startTriggers(COUNT);
		await group.runFor(20_000); // they learn the order, then move onto one tick
		sandbox.clearRequests();
		await group.runFor(60_000);
		expect(listRequests().length).toBeGreaterThanOrEqual(12);
		expect(listRequests().length).toBeLessThanOrEqual(13);
		expect(accountListings()).toHaveLength(listRequests().length);
		expect(sandbox.requests).toHaveLength(listRequests().length); // nothing else at idle
		for (let i = 0; i < COUNT; i++) send(i);
		send(2, 'another');
		await group.runFor(15_000);
		expectEachDeliveredItsOwn();
		expect(listRequests().length).toBeLessThanOrEqual(16); // still one a tick
	});

	test('a known message deleted costs one listing of its conversation, not one a check', async () => {
		await setUp();
		await startTriggers(3);
		for (let i = 0; i < 3; i++) send(i);
		await group.runFor(20_000);
		const [deleted] = /** @type {string[]} */ (sent.get(conversation(0)));
		sandbox.store.deleteMessage(deleted);
		sent.set(conversation(0), []);
		sandbox.clearRequests();
		await group.runFor(30_000);
		const own = listRequests().filter((/** @type {any} */ r) =>
			r.query.includes('conversation_id'),
		);
		expect(own).toHaveLength(1);
		expect(accountListings().length).toBeLessThanOrEqual(7);
		send(0);
		await group.runFor(10_000);
		expect(deliveredBy(group.hosts[0])).toEqual([deleted, ...(sent.get(conversation(0)) ?? [])]);
	});

	test('with a trigger on every conversation beside them, all read the one listing of the account', async () => {
		await setUp();
		await startTriggers(3);
		const everything = await group.activate(
			group.hostFor({ interval: 5, unit: 'seconds', options: {} }),
		);
		await group.runFor(20_000);
		sandbox.clearRequests();
		for (let i = 0; i < 3; i++) send(i);
		await group.runFor(30_000);
		expect(listRequests().length).toBeLessThanOrEqual(7);
		expect(accountListings()).toHaveLength(listRequests().length);
		group.hosts
			.filter((/** @type {any} */ h) => h !== everything)
			.forEach((/** @type {any} */ host, /** @type {number} */ i) =>
				expect(deliveredBy(host)).toEqual(sent.get(conversation(i))),
			);
		expect(deliveredBy(everything)).toEqual([0, 1, 2].flatMap((i) => sent.get(conversation(i))));
	});

	test('a busy account (more new in the look-back window than the pages the triggers share) makes each list its own conversation: every message once', async () => {
		await setUp();
		await startTriggers(COUNT, { pageSize: 5, lookBackSeconds: 10 });
		await group.runFor(20_000);
		sandbox.clearRequests();
		let n = 0;
		for (let t = 0; t < 8; t++) {
			// 15 a tick, 30 in any 10 s: 6 pages of 5, more than the 5 that 6 triggers may share
			for (let k = 0; k < 15; k++) send(n++ % COUNT);
			await group.runFor(5_000);
		}
		const own = listRequests().filter((/** @type {any} */ r) =>
			r.query.includes('conversation_id'),
		);
		expect(own.length).toBeGreaterThanOrEqual(COUNT * 7);
		for (let t = 0; t < 4; t++) {
			send(t % COUNT); // then one a tick: the window holds a page again
			await group.runFor(5_000);
		}
		await group.runFor(10_000);
		sandbox.clearRequests();
		await group.runFor(30_000);
		expect(listRequests().length).toBeLessThanOrEqual(7);
		expect(accountListings()).toHaveLength(listRequests().length);
		expectEachDeliveredItsOwn();
	});

	test('a trigger alone on its account, or one watching edits, lists only its own conversation', async () => {
		await setUp();
		await startTriggers(1);
		await group.runFor(20_000);
		send(0);
		await group.runFor(20_000);
		expect(accountListings()).toEqual([]);
		await group.activate(
			group.hostFor({
				interval: 5,
				unit: 'seconds',
				conversationId: byId(conversation(1)),
				events: ['newMessage', 'messageEdited'],
				options: {},
			}),
		);
		await group.runFor(20_000);
		send(0);
		send(1);
		await group.runFor(20_000);
		expect(accountListings()).toEqual([]);
		expectEachDeliveredItsOwn();
	});
});

test('a service listing oldest first: each trigger lists its own conversation, never the account', async () => {
	await setUp({ order: 'oldest_first' });
	await startTriggers(3);
	await group.runFor(20_000);
	for (let i = 0; i < 3; i++) send(i);
	await group.runFor(20_000);
	expect(accountListings()).toEqual([]);
	expectEachDeliveredItsOwn();
});

test('a service whose account listing leaves archived conversations out: the trigger on one notices from a message it knows, lists its own from then on, and misses nothing', async () => {
	await setUp({ quirks: { archivedListedApart: true } });
	await startTriggers(3);
	await group.runFor(20_000);
	for (let i = 0; i < 3; i++) send(i);
	await group.runFor(10_000);
	sandbox.store.updateConversation(conversation(2), { archived_at: sandbox.store.now() });
	await group.runFor(10_000);
	const apart = group.hosts[2];
	expect(stoppedReadingAccount(apart)).toHaveLength(1);
	sandbox.clearRequests();
	await sendRounds();
	expectEachDeliveredItsOwn();
	const ownOfArchived = listRequests().filter((/** @type {any} */ r) =>
		r.query.includes(`conversation_id=${conversation(2)}`),
	);
	expect(ownOfArchived.length).toBeGreaterThanOrEqual(5);
});

test('a service that takes an ID in any case (Conversation CONV_00000001, written conv_00000001): the triggers pick their messages from the account listing by the ID as the service writes it', async () => {
	await setUp({ quirks: { idsIgnoreCase: true } });
	await group.start(3, (/** @type {number} */ i) => ({
		interval: 5,
		unit: 'seconds',
		conversationId: byId(conversation(i).toUpperCase()),
		options: {},
	}));
	await group.runFor(20_000);
	sandbox.clearRequests();
	await sendRounds();
	expectEachDeliveredItsOwn();
	expect(accountListings().length).toBeGreaterThanOrEqual(5);
	expect(listRequests().length).toBeLessThanOrEqual(accountListings().length + 1);
});

test('a service that refuses the account listing (403) but lists each conversation: the triggers list their own from then on and miss nothing', async () => {
	await setUp();
	sandbox.failNext({
		match: { method: 'GET', url: '^/v1/messages(\\?(?!.*conversation_id).*)?$' },
		status: 403,
		times: 'always',
	});
	await startTriggers(3);
	await group.runFor(20_000);
	await sendRounds();
	expectEachDeliveredItsOwn();
	for (const host of group.hosts)
		expect(stoppedReadingAccount(host)).toEqual([
			expect.stringContaining("(the service refused the account's listing (403))"),
		]);
	expect(accountListings().length).toBeLessThanOrEqual(3);
});
