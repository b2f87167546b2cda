'use strict';
const ledger = require('../../dist/nodes/MessagingTrigger/v2/deliveryLedger');

test('deliveries: at most 100 messages each, keys per delivery and attempt', () => {
	const ids = Array.from({ length: 250 }, (_, i) => `m${i}`);
	const deliveries = ledger.newDeliveries(ids, 1_700_000_000_000);
	expect(deliveries.map((d) => d.keys.length)).toEqual([100, 100, 50]);
	expect(new Set(deliveries.map((d) => d.id)).size).toBe(3);
	const key = ledger.deduplicationKey(
		{ workflowId: 'wf', nodeId: 'node' },
		{ ...deliveries[0], attempt: 3 },
	);
	expect(key).toMatch(/^messaging-trigger:wf:node:[a-z0-9]+-[a-z0-9]+:3$/);
	expect(key.length).toBeLessThan(255); // n8n's column
});

test('lost attempts are emitted again, then reported when spent; settled ones are gone', () => {
	let state = ledger.addInFlight(ledger.emptyLedger(), ledger.newDeliveries(['a', 'b'], 1, 1));
	const [first, second] = state.inFlight;
	state = ledger.markFinished(state, first.id);
	state = ledger.markLost(state, second.id, 1, 'previousAttemptFailed');
	expect(state.redeliver.map((d) => [d.keys, d.lostBecause])).toEqual([
		[['b'], 'previousAttemptFailed'],
	]);
	expect(ledger.markLost(state, second.id, 1, 'previousAttemptFailed')).toBe(state); // an attempt no longer in flight changes nothing
	let { retry, exhausted } = ledger.nextAttempts(state, 2);
	expect(retry.map((d) => d.attempt)).toEqual([2]);
	state = ledger.afterRedelivery(state, retry, exhausted);
	expect(state.inFlight.map((d) => [d.keys, d.attempt])).toEqual([[['b'], 2]]);
	state = ledger.markLost(state, second.id, 2, 'previousAttemptFailed');
	({ retry, exhausted } = ledger.nextAttempts(state, 2));
	expect(retry).toEqual([]);
	expect(exhausted.map((d) => d.keys)).toEqual([['b']]);
	expect(ledger.afterRedelivery(state, retry, exhausted)).toEqual(ledger.emptyLedger());
});

test('after a restart, deliveries this process does not know are lost; known ones stay in flight', () => {
	const state = ledger.addInFlight(ledger.emptyLedger(), ledger.newDeliveries(['a', 'b'], 1, 1));
	const recovered = ledger.recoverAfterRestart(state, (d) => d.keys[0] === 'a');
	expect(recovered.inFlight.map((d) => d.keys)).toEqual([['a']]);
	expect(recovered.redeliver.map((d) => [d.keys, d.lostBecause])).toEqual([
		[['b'], 'previousOutcomeUnknown'],
	]);
	expect(ledger.eventsInFlight(recovered)).toBe(2);
});

test('a delivery lost with its process repeats its attempt, even the last; once n8n says it existed, the next one follows', () => {
	let state = ledger.addInFlight(ledger.emptyLedger(), ledger.newDeliveries(['a'], 1, 1));
	const id = state.inFlight[0].id;
	state = { ...state, inFlight: [{ ...state.inFlight[0], attempt: 2 }] };
	state = ledger.recoverAfterRestart(state, () => false);
	let { retry, exhausted } = ledger.nextAttempts(state, 2);
	// same key, flag gone; its items will say why it is emitted again
	expect(retry).toEqual([
		{ id, keys: ['a'], attempt: 2, firstEmittedAt: 1, lostBecause: 'previousOutcomeUnknown' },
	]);
	expect(exhausted).toEqual([]);
	state = ledger.afterRedelivery(state, retry, exhausted);
	expect(state.inFlight).toEqual(retry);
	// n8n dropped the repeat: that attempt had started, so it counts.
	state = ledger.markLost(state, id, 2, 'previousOutcomeUnknown');
	({ retry, exhausted } = ledger.nextAttempts(state, 2));
	expect([retry, exhausted.map((d) => d.attempt)]).toEqual([[], [2]]);
});

test('a ledger written before keys were data (version 1, keys as text) is read as version 2, each key naming the same', () => {
	const { fromLedgerV1, isLedgerV1 } = require('../../dist/nodes/MessagingTrigger/v2/ledgerV1');
	const { keyText } = require('../../dist/nodes/MessagingTrigger/decisions');
	for (const name of ['v2-new-messages', 'v2-events', 'v2-bursts']) {
		const stored = require(`../fixtures/trigger/${name}.json`).deliveries;
		expect(isLedgerV1(stored)).toBe(true);
		expect(ledger.isLedger(stored)).toBe(false);
		const read = fromLedgerV1(stored);
		expect(ledger.isLedger(read)).toBe(true);
		for (const list of ['inFlight', 'redeliver']) {
			expect(read[list].map(({ keys, ...rest }) => ({ ...rest, ids: keys.map(keyText) }))).toEqual(
				stored[list],
			);
		}
	}
	const stored = require('../fixtures/trigger/v2-events.json').deliveries;
	const events = fromLedgerV1(/** @type {Parameters<typeof fromLedgerV1>[0]} */ (stored));
	expect(events.inFlight[0].keys).toEqual([
		'msg_00000003',
		{ kind: 'newConversation', id: 'conv_00000002' },
		{ kind: 'messageEdited', id: 'msg_00000001', updatedAt: 1768478402 },
		{ kind: 'reactionAdded', id: 'msg_00000002', reaction: '✅', reactor: 'ct_bob' },
	]);
	expect(events.redeliver[0].keys).toEqual([
		{ kind: 'reactionRemoved', id: 'msg_00000002', reaction: '✅', reactor: 'ct_bob' },
	]);
	// A delivery's id and attempts are kept: its next attempt has the deduplication key it would have had.
	expect(events.inFlight[0]).toMatchObject({ id: 'mkfedqiw-12gd1jh', attempt: 2 });
});
