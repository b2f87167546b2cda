'use strict';
/** The trigger's events, pure: their settings, the watch window's changes, bursts, keys, and the plan. */
const {
	readEventSettings,
	NEW_MESSAGES_ONLY,
} = require('../../dist/nodes/MessagingTrigger/events/settings');
const {
	watchChanges,
	reactionPairs,
	WATCHED_TEXT_CHARS,
} = require('../../dist/nodes/MessagingTrigger/events/watch');
const {
	groupBursts,
	burstKey,
	MAX_BURST_MESSAGES,
} = require('../../dist/nodes/MessagingTrigger/events/bursts');
const { keyFromText } = require('../../dist/nodes/MessagingTrigger/v2/ledgerV1');
const { keyText } = require('../../dist/nodes/MessagingTrigger/decisions');
const { buildItems } = require('../../dist/nodes/MessagingTrigger/deliveryItems');
const { clockAt } = require('../../dist/nodes/MessagingTrigger/serviceClock');
const { plan: planDecisions } = require('../../dist/nodes/MessagingTrigger/plan');

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

const msg = (id, created_at, fields = {}) => ({
	id,
	created_at,
	conversation_id: 'c1',
	contact: { id: 'ann' },
	message: `text ${id}`,
	reactions: [],
	updated_at: null,
	...fields,
});

describe('readEventSettings: a clear error naming the option', () => {
	test.each([
		[[], {}, /^Events: choose at least one/],
		[
			['newMessage'],
			{ watchWindow: 0 },
			/^Watch Window \(Messages\) must be a whole number from 1 to 200, not 0/,
		],
		[['newMessage'], { watchWindow: 100000 }, /^Watch Window \(Messages\).*not 100000/],
		[
			['newMessage'],
			{ groupBursts: true, quietPeriod: 120, maxWait: 60 },
			/^Quiet Period \(Seconds\) \(120\) must not be longer than Maximum Wait \(Seconds\) \(60\)/,
		],
		[['newMessage'], { groupBursts: true, maxWait: 0 }, /^Maximum Wait \(Seconds\) must be from 1/],
		[['reactionAdded'], { groupBursts: true }, /^Group Bursts applies to New Message/],
		[['newMessage', 'typo'], {}, /^Events: "typo" is not an event/],
	])('%j %j', (events, options, message) => {
		expect(readEventSettings(events, options)).toMatch(message);
	});

	test('defaults: new messages, a window of 20, no bursts', () => {
		expect(readEventSettings(undefined, {})).toEqual(NEW_MESSAGES_ONLY);
		expect(readEventSettings(['newMessage'], { groupBursts: true })).toEqual({
			events: ['newMessage'],
			watchWindow: 20,
			bursts: { quietSeconds: 10, maxWaitSeconds: 60 },
		});
	});
});

describe('watchChanges: edits and reactions in the watch window', () => {
	/** @type {Set<import('../../dist/nodes/MessagingTrigger/events/watch').ChangeKind>} */
	const kinds = new Set(['messageEdited', 'reactionAdded', 'reactionRemoved']);
	const isNewMessage = (m) => m.created_at > 11;

	test('the first check only notes the window; later an edit and reactions by several people, one change each', () => {
		const first = watchChanges(undefined, [msg('a', 10), msg('b', 11)], { kinds, isNewMessage });
		expect(first.changes).toEqual([]);
		const edited = msg('a', 10, { message: 'fixed', updated_at: 20 });
		const reacted = msg('b', 11, {
			reactions: [{ '👍': ['ann', 'bob'] }, { '📌': ['bob'] }],
			updated_at: 21,
		});
		const second = watchChanges(first.next, [edited, reacted], { kinds, isNewMessage });
		expect(second.changes.map((c) => keyText(c.key))).toEqual([
			'edited:a@20',
			'reaction+:b:👍:ann',
			'reaction+:b:👍:bob',
			'reaction+:b:📌:bob',
		]);
		expect(second.changes[0]).toMatchObject({
			before: { message: 'text a' },
			after: { message: 'fixed' },
		});
		const removed = msg('b', 11, { reactions: [{ '👍': ['bob'] }], updated_at: 22 });
		const third = watchChanges(second.next, [edited, removed], { kinds, isNewMessage });
		expect(third.changes.map((c) => keyText(c.key))).toEqual([
			'reaction-:b:👍:ann',
			'reaction-:b:📌:bob',
		]);
		// Nothing changed: nothing again.
		expect(watchChanges(third.next, [edited, removed], { kinds, isNewMessage }).changes).toEqual(
			[],
		);
	});

	test("the account's own edits and reactions are left out", () => {
		const first = watchChanges(undefined, [msg('a', 10, { contact: { id: 'me' } }), msg('b', 11)], {
			kinds,
			isNewMessage,
		});
		const next = watchChanges(
			first.next,
			[
				msg('a', 10, { contact: { id: 'me' }, message: 'mine, edited', updated_at: 20 }),
				msg('b', 11, { reactions: [{ '✅': ['me', 'ann'] }], updated_at: 20 }),
			],
			{ kinds, own: 'me', isNewMessage },
		);
		expect(next.changes.map((c) => keyText(c.key))).toEqual(['reaction+:b:✅:ann']);
	});

	test('a message sent since the last check brings its reactions as added; an older one seen first reports nothing', () => {
		const first = watchChanges(undefined, [msg('a', 10)], { kinds, isNewMessage });
		const next = watchChanges(
			first.next,
			[
				msg('old', 5, { reactions: [{ x: ['ann'] }] }),
				msg('a', 10),
				msg('new', 12, { reactions: [{ x: ['bob'] }] }),
			],
			{ kinds, isNewMessage },
		);
		expect(next.changes.map((c) => keyText(c.key))).toEqual(['reaction+:new:x:bob']);
	});

	test('only the chosen kinds; the state holds the window, each text cut to its bound', () => {
		const long = 'y'.repeat(WATCHED_TEXT_CHARS + 50);
		const first = watchChanges(undefined, [msg('a', 10, { message: long })], {
			kinds: new Set(['reactionAdded']),
			isNewMessage,
		});
		const next = watchChanges(
			first.next,
			[msg('a', 10, { message: 'short', reactions: [{ x: ['ann'] }] })],
			{
				kinds: new Set(['reactionAdded']),
				isNewMessage,
			},
		);
		expect(next.changes.map((c) => c.event)).toEqual(['reactionAdded']);
		expect(first.next.messages[0].text).toHaveLength(WATCHED_TEXT_CHARS);
		expect(next.next.messages).toHaveLength(1);
	});

	test('an edit of a long text: before.message is cut between whole characters, truncated only when cut', () => {
		const edit = (text) => {
			const first = watchChanges(undefined, [msg('a', 10, { message: text })], {
				kinds: new Set(['messageEdited']),
				isNewMessage,
			});
			const [change] = watchChanges(first.next, [msg('a', 10, { message: 'edited' })], {
				kinds: new Set(['messageEdited']),
				isNewMessage,
			}).changes;
			return /** @type {Extract<import('../../dist/nodes/MessagingTrigger/events/watch').Change, { event: 'messageEdited' }>} */ (
				change
			).before;
		};
		const emoji = `${'y'.repeat(WATCHED_TEXT_CHARS - 1)}${'😀'.repeat(10)}`;
		expect(edit(emoji)).toEqual({ message: 'y'.repeat(WATCHED_TEXT_CHARS - 1), truncated: true });
		const exact = 'z'.repeat(WATCHED_TEXT_CHARS);
		expect(edit(exact)).toEqual({ message: exact });
		expect(edit(`${exact}!`)).toEqual({ message: exact, truncated: true });
	});

	test('reaction sets read from an array of maps or one map, reactors as ids or contact objects', () => {
		expect(reactionPairs([{ a: ['1'] }, { b: [{ id: 2 }] }])).toEqual(['a\n1', 'b\n2']);
		expect(reactionPairs({ a: ['1', '1'] })).toEqual(['a\n1']);
		expect(reactionPairs(null)).toEqual([]);
	});
});

describe('groupBursts', () => {
	const times = { now: 100, quiet: 10, maxWait: 60 };
	const from = (id, at, sender = 'ann', conversation = 'c1') =>
		msg(id, at, { contact: { id: sender }, conversation_id: conversation });

	test('one sender in one conversation within the quiet period: held until quiet, then one burst', () => {
		const open = groupBursts([], [from('1', 95), from('2', 97)], times);
		expect(open.due).toEqual([]);
		expect(open.held.map((b) => b.map((m) => m.id))).toEqual([['1', '2']]);
		const later = groupBursts(open.held, [from('3', 99)], { ...times, now: 109 + 1 });
		expect(later.due.map((b) => b.map((m) => m.id))).toEqual([['1', '2', '3']]);
		expect(later.held).toEqual([]);
		expect(keyText(burstKey(later.due[0]))).toBe('burst:1..3');
	});

	test('other senders and conversations are other bursts; a gap longer than the quiet period starts a new one', () => {
		const out = groupBursts(
			[],
			[from('1', 50), from('2', 51, 'bob'), from('3', 52, 'ann', 'c2'), from('4', 70)],
			{ ...times, now: 75 },
		);
		expect(out.due.map((b) => b.map((m) => m.id))).toEqual([['1'], ['2'], ['3']]);
		expect(out.held.map((b) => b.map((m) => m.id))).toEqual([['4']]);
	});

	test('the maximum wait ends a burst that never goes quiet; a burst holds at most its bound', () => {
		const steady = Array.from({ length: 10 }, (_, i) => from(String(i), 40 + i * 5));
		const out = groupBursts([], steady, { ...times, now: 100 });
		expect(out.due).toHaveLength(1);
		expect(out.due[0]).toHaveLength(10);
		const many = Array.from({ length: MAX_BURST_MESSAGES + 1 }, (_, i) => from(String(i), 99));
		const capped = groupBursts([], many, times);
		expect(capped.due.map((b) => b.length)).toEqual([MAX_BURST_MESSAGES]);
	});
});

test('a key an earlier build wrote as text is read as what it names, and written back as the same text', () => {
	expect(keyFromText('msg_1')).toBe('msg_1'); // New Message: the message id
	expect(keyFromText('edited:msg_1@1700000000')).toEqual({
		kind: 'messageEdited',
		id: 'msg_1',
		updatedAt: 1700000000,
	});
	expect(keyFromText('reaction-:msg_1::smile::ct_2')).toEqual({
		kind: 'reactionRemoved',
		id: 'msg_1',
		reaction: ':smile:',
		reactor: 'ct_2',
	});
	expect(keyFromText('conversation:conv_1')).toEqual({ kind: 'newConversation', id: 'conv_1' });
	expect(keyFromText('burst:msg_1..msg_4')).toEqual({
		kind: 'messageBurst',
		firstId: 'msg_1',
		lastId: 'msg_4',
	});
	for (const text of [
		'msg_1',
		'edited:msg_1@1700000000',
		'edited:msg_1@null',
		'reaction+:msg_1:👍:ct_2',
		'reaction-:msg_1::smile::ct_2',
		'conversation:conv_1',
		'burst:msg_1..msg_4',
	])
		expect(keyText(keyFromText(text))).toBe(text);
});

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
