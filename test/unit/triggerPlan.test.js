'use strict';
/** The trigger's plan with its events: the decisions, their keys as text and the items they emit. */
const { NEW_MESSAGES_ONLY } = require('../../dist/nodes/MessagingTrigger/events/settings');
const { keyText } = require('../../dist/nodes/MessagingTrigger/decisions');
const { buildItems } = require('../../dist/nodes/MessagingTrigger/deliveryItems');
const { clockAt } = require('../../dist/nodes/MessagingTrigger/serviceClock');
const { plan: planDecisions } = require('../../dist/nodes/MessagingTrigger/plan');
const { msg } = require('../harness/triggerMessage');

/**
 * The plan as these tests read it: each decision with its key as text and its item as emitted
 * (deliveryItems.ts). The listings carry the service's clock (in seconds) at `nowMs`.
 * @param {import('../../dist/nodes/MessagingTrigger/triggerState').TriggerState | null} state
 * @param {any} listing
 * @param {number} room
 * @param {{ nowMs: number, unitSetting?: any, output?: any } & Omit<import('../../dist/nodes/MessagingTrigger/plan').PlanSettings, 'room'>} options
 */
function plan(state, listing, room, { nowMs, unitSetting, output, ...settings }) {
	const withClock = (l) => l && { ...l, clock: clockAt(unitSetting, nowMs) };
	const result = planDecisions(
		state,
		{
			...listing,
			messages: withClock(listing.messages),
			conversations: withClock(listing.conversations),
		},
		{ ...settings, room },
	);
	const built = buildItems(result.decisions, { events: settings.events, output }, result.gap);
	const deliveries = built.map(({ decision, item }) => ({
		key: keyText(decision.key),
		items: [item],
	}));
	return { ...result, deliveries };
}

describe('plan', () => {
	const listing = (from, listed, extra = {}) => ({
		from,
		listed,
		evidence: { rising: 0, falling: Math.max(0, listed.length - 1) },
		finished: 'complete',
		exhausted: true,
		stalled: false,
		pages: 1,
		...extra,
	});
	const base = {
		lookBackSeconds: 60,
		emitExisting: false,
		unitSetting: 'seconds',
		nowMs: 200_000,
		skipOwnMessages: true,
		output: { isoTimestamps: false, unitSetting: 'seconds' },
	};
	/** @type {import('../../dist/nodes/MessagingTrigger/triggerState').TriggerState} */
	const state = {
		version: 1,
		settledThrough: 100,
		newest: 150,
		recent: [['a', 150]],
		order: 'newest_first',
	};

	test('New Message alone: the message id as key and the message as item, as before events', () => {
		const result = plan(state, { messages: listing(state, [msg('b', 160), msg('a', 150)]) }, 10, {
			...base,
			events: NEW_MESSAGES_ONLY,
		});
		expect(result.deliveries.map((d) => d.key)).toEqual(['b']);
		expect(result.deliveries[0].items).toEqual([{ json: msg('b', 160) }]);
		expect(result.nextState.recent.map(([id]) => id)).toEqual(['a', 'b']);
	});

	test("a read of the account's listing keeps its top, unless what it read does not all fit (it waits, and the next read must reach it)", () => {
		const seen = [
			['x', 170],
			['c', 171],
		];
		const read = listing(state, [msg('c', 171), msg('b', 160), msg('a', 150)], {
			accountSeen: seen,
		});
		const settings = { ...base, events: NEW_MESSAGES_ONLY };
		expect(plan(state, { messages: read }, 10, settings).nextState.accountSeen).toEqual(seen);
		const truncated = plan(state, { messages: read }, 1, settings);
		expect(truncated.deliveries.map((d) => d.key)).toEqual(['b']);
		expect(truncated.nextState.accountSeen).toBeUndefined();
	});

	test("the account's own messages are left out once it is known, and a learned contact is stored", () => {
		const mine = msg('b', 160, { contact: { id: 'me' } });
		const result = plan(state, { messages: listing(state, [mine, msg('a', 150)]) }, 10, {
			...base,
			events: NEW_MESSAGES_ONLY,
			own: 'me',
		});
		expect(result.deliveries).toEqual([]);
		expect(result.ownCandidates.map((m) => m.id)).toEqual(['b']);
		expect(result.nextState.ownContactId).toBe('me');
	});

	test('Group Bursts: the burst is held in the state, then delivered as one item under its key', () => {
		/** @type {import('../../dist/nodes/MessagingTrigger/events/settings').EventSettings} */
		const events = {
			events: ['newMessage'],
			watchWindow: 20,
			bursts: { quietSeconds: 10, maxWaitSeconds: 60 },
		};
		const first = plan(
			state,
			{ messages: listing(state, [msg('c', 195), msg('b', 194), msg('a', 150)]) },
			10,
			{
				...base,
				events,
			},
		);
		expect(first.deliveries).toEqual([]);
		expect(first.nextState.bursts.map((b) => b.map((m) => m.id))).toEqual([['b', 'c']]);
		const next = first.nextState;
		const second = plan(next, { messages: listing(next, [msg('c', 195), msg('b', 194)]) }, 10, {
			...base,
			nowMs: 206_000,
			events,
		});
		expect(second.deliveries.map((d) => d.key)).toEqual(['burst:b..c']);
		expect(second.deliveries[0].items[0].json).toMatchObject({
			event: 'messageBurst',
			text: 'text b\ntext c',
			count: 2,
			firstMessageId: 'b',
			lastMessageId: 'c',
		});
		expect(second.decisions[0].key).toEqual({ kind: 'messageBurst', firstId: 'b', lastId: 'c' });
		expect(second.nextState.bursts).toBeUndefined();
	});

	test('New Conversation: its own watermark; the first check notes where it stands, the next delivers once', () => {
		/** @type {import('../../dist/nodes/MessagingTrigger/events/settings').EventSettings} */
		const events = { events: ['newConversation'], watchWindow: 20 };
		const conversation = (id, created_at) => ({ id, created_at, contact_id: 'ann' });
		const first = plan(
			state,
			{ messages: listing(state, []), conversations: listing(null, [conversation('k1', 100)]) },
			10,
			{
				...base,
				events,
			},
		);
		expect(first.deliveries).toEqual([]);
		const conversations = first.nextState.conversations;
		const second = plan(
			first.nextState,
			{
				messages: listing(first.nextState, []),
				conversations: listing(conversations, [conversation('k2', 190), conversation('k1', 100)]),
			},
			10,
			{ ...base, events },
		);
		expect(second.deliveries.map((d) => d.key)).toEqual(['conversation:k2']);
		expect(second.deliveries[0].items[0].json).toEqual({
			event: 'newConversation',
			conversation: conversation('k2', 190),
		});
	});

	test('room: changes that do not fit wait, the window is not moved', () => {
		/** @type {import('../../dist/nodes/MessagingTrigger/events/settings').EventSettings} */
		const events = { events: ['reactionAdded'], watchWindow: 20 };
		const watched = plan(state, { messages: listing(state, []), window: [msg('a', 150)] }, 10, {
			...base,
			events,
		});
		const reacted = msg('a', 150, { reactions: [{ x: ['ann', 'bob'] }] });
		const full = plan(
			watched.nextState,
			{ messages: listing(watched.nextState, []), window: [reacted] },
			1,
			{
				...base,
				events,
			},
		);
		expect(full.deliveries).toEqual([]);
		expect(full.nextState.watch).toEqual(watched.nextState.watch);
	});
});
