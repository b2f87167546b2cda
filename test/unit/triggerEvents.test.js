'use strict';
/**
 * The trigger's events, pure: their settings, the watch window's changes, bursts and keys. The plan with its
 * events: triggerPlan.test.js.
 */
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
const { msg } = require('../harness/triggerMessage');

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
