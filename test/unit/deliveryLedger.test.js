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
