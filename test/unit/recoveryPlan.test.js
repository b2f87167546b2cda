'use strict';
/** Recovery by listing, its pure core: the bounds a delivery records, the walks, where a walk ends, bursts. */
const {
	boundsOf,
	withBounds,
	recoveryWalks,
	walkEnds,
	keepsListed,
	burstMessages,
	MAX_BOUND_CONVERSATIONS,
} = require('../../dist/nodes/MessagingTrigger/events/recoveryPlan');

/** @typedef {import('../../dist/nodes/MessagingTrigger/decisions').Decision} Decision */

/** @returns {import('../../dist/nodes/MessagingTrigger/triggerState').TriggerMessage} the fields recovery reads */
const message = (id, created_at, conversation_id = 'c1', contact = 'ct_ann') => ({
	id,
	created_at,
	conversation_id,
	contact: { id: contact },
});
/** @returns {Decision} */
const newMessage = (m) => ({ event: 'newMessage', key: m.id, message: m });

describe('boundsOf', () => {
	test('the created_at range and the conversations of the messages, and the cursor the listing started after', () => {
		/** @type {Decision[]} */
		const decisions = [
			newMessage(message('m2', 20, 'c2')),
			{
				event: 'messageEdited',
				key: { kind: 'messageEdited', id: 'm1', updatedAt: 30 },
				message: message('m1', 10),
				after: { message: 'x' },
			},
			{
				event: 'messageBurst',
				key: { kind: 'messageBurst', firstId: 'm3', lastId: 'm4' },
				messages: [message('m3', 25), message('m4', 40)],
			},
			{ event: 'newConversation', key: { kind: 'newConversation', id: 'c9' }, conversation: {} },
		];
		expect(boundsOf(decisions, 'm0')).toEqual({
			oldest: 10,
			newest: 40,
			conversations: ['c1', 'c2'],
			after: 'm0',
		});
	});

	test('New Conversation only: no bounds (read by itself)', () => {
		const conversation = /** @type {Decision} */ ({
			event: 'newConversation',
			key: { kind: 'newConversation', id: 'c9' },
		});
		expect(boundsOf([conversation])).toBeUndefined();
	});

	test('more conversations than recorded at most, or one unknown: the conversations are left out', () => {
		const many = Array.from({ length: MAX_BOUND_CONVERSATIONS + 1 }, (_, i) =>
			newMessage(message(`m${i}`, i, `c${i}`)),
		);
		expect(boundsOf(many)).toEqual({ oldest: 0, newest: MAX_BOUND_CONVERSATIONS });
		expect(boundsOf([newMessage({ id: 'm1', created_at: 5 })])).toEqual({ oldest: 5, newest: 5 });
	});

	test('withBounds: each delivery gets the bounds of its own decisions; a newest-first state records no cursor', () => {
		const decisions = [1, 2, 3].map((t) => newMessage(message(`m${t}`, t)));
		const deliveries = [{ keys: ['m1', 'm2'] }, { keys: ['m3'] }];
		// States with what withBounds reads of one: the list order and the cursor.
		/** @typedef {import('../../dist/nodes/MessagingTrigger/triggerState').TriggerState} TriggerState */
		const newestFirst = /** @type {TriggerState} */ ({ order: 'newest_first', cursor: 'x' });
		const unordered = /** @type {TriggerState} */ ({ cursor: 'x' });
		expect(withBounds(deliveries, decisions, newestFirst)).toEqual([
			{ keys: ['m1', 'm2'], bounds: { oldest: 1, newest: 2, conversations: ['c1'] } },
			{ keys: ['m3'], bounds: { oldest: 3, newest: 3, conversations: ['c1'] } },
		]);
		expect(withBounds(deliveries, decisions, unordered)[1].bounds.after).toBe('x');
	});
});

describe('recoveryWalks', () => {
	const lost = (keys, oldest, newest, conversations, after) => ({
		keys,
		bounds: { oldest, newest, ...(conversations ? { conversations } : {}), after },
	});
	/** @type {import('../../dist/nodes/MessagingTrigger/events/recoveryPlan').WalkSettings} */
	const settings = { order: 'newest_first', pageSize: 100, filtered: false };
	const ids = (n, prefix) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

	test('ledgers of earlier builds (no bounds) and New Conversation keys plan no walk', () => {
		expect(recoveryWalks([{ keys: ['m1'] }], settings)).toEqual([]);
		const conversation = lost([{ kind: 'newConversation', id: 'c1' }], 1, 1, ['c1']);
		expect(recoveryWalks([conversation], settings)).toEqual([]);
	});

	test('newest first, few conversations: one walk per conversation, each down to its oldest message', () => {
		const walks = recoveryWalks(
			[lost(ids(100, 'a'), 10, 20, ['c1', 'c2']), lost(ids(100, 'b'), 30, 40, ['c2'])],
			settings,
		);
		expect(walks.map((w) => [w.conversationId, w.order, w.bound, w.wanted.size])).toEqual([
			['c1', 'newest_first', 10, 100],
			['c2', 'newest_first', 10, 200],
		]);
	});

	test('newest first, more conversations than the unfiltered listing needs pages: one unfiltered walk', () => {
		const walks = recoveryWalks([lost(ids(150, 'a'), 10, 20, ['c1', 'c2', 'c3'])], settings);
		expect(walks).toEqual([{ order: 'newest_first', bound: 10, wanted: new Set(ids(150, 'a')) }]);
		// Conversations not recorded (too many), or a trigger that lists one conversation itself: its own listing.
		expect(recoveryWalks([lost(['m1'], 5, 5)], settings)[0].conversationId).toBeUndefined();
		const filtered = { ...settings, filtered: true };
		expect(recoveryWalks([lost(['m1'], 5, 5, ['c1'])], filtered)[0].conversationId).toBeUndefined();
	});

	test('oldest first, or order unknown: one walk from where the oldest delivery listing started, up to the newest', () => {
		const deliveries = [
			lost(['m1'], 10, 20, ['c1'], 'm0'),
			lost(['m5', 'm6'], 30, 40, ['c1'], 'm4'),
		];
		expect(recoveryWalks(deliveries, { ...settings, order: 'oldest_first' })).toEqual([
			{ order: 'oldest_first', after: 'm0', bound: 40, wanted: new Set(['m1', 'm5', 'm6']) },
		]);
		expect(recoveryWalks(deliveries, { ...settings, order: undefined })[0]).toMatchObject({
			order: undefined,
			after: 'm0',
		});
	});
});

describe('walkEnds', () => {
	const page = (...times) => times.map((t, i) => message(`p${i}`, t));
	const walk = (order, bound) => ({ order, bound, wanted: new Set() });

	test('newest first: past the bound, or every message found and the bound reached', () => {
		expect(walkEnds(walk('newest_first', 10), page(9, 8), false)).toBe(true);
		expect(walkEnds(walk('newest_first', 10), page(12, 10), false)).toBe(false);
		expect(walkEnds(walk('newest_first', 10), page(12, 10), true)).toBe(true);
		expect(walkEnds(walk('newest_first', 10), page(12, 11), true)).toBe(false);
		// One late message above the bound on an older page keeps the walk going.
		expect(walkEnds(walk('newest_first', 10), page(9, 11, 8), false)).toBe(false);
	});

	test('oldest first: the mirror image; order unknown: only once every message is found', () => {
		expect(walkEnds(walk('oldest_first', 10), page(11, 12), false)).toBe(true);
		expect(walkEnds(walk('oldest_first', 10), page(9, 10), true)).toBe(true);
		expect(walkEnds(walk('oldest_first', 10), page(8, 9), true)).toBe(false);
		expect(walkEnds(walk(undefined, 10), page(1, 2), false)).toBe(false);
		expect(walkEnds(walk(undefined, 10), page(1, 2), true)).toBe(true);
	});
});

describe('bursts from a listing', () => {
	test('the first, the last, and the same sender between them in the same conversation', () => {
		const first = message('m1', 10);
		const last = message('m5', 50);
		const listed = [
			message('m0', 5),
			message('m2', 20),
			message('m3', 30, 'c1', 'ct_bob'),
			message('m4', 40, 'c2'),
			message('m6', 60),
		];
		expect(burstMessages(first, last, listed).map((m) => m.id)).toEqual(['m1', 'm2', 'm5']);
	});

	test('keepsListed: the wanted messages, and around a burst every message in its range', () => {
		const keep = keepsListed([
			{ keys: ['m1'], bounds: { oldest: 1, newest: 1 } },
			{
				keys: [{ kind: 'messageBurst', firstId: 'm3', lastId: 'm5' }],
				bounds: { oldest: 30, newest: 50 },
			},
		]);
		expect(['m1', 'm3', 'm4', 'm9'].map((id, i) => keep(message(id, [1, 30, 40, 60][i])))).toEqual([
			true,
			true,
			true,
			false,
		]);
	});
});
