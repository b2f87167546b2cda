'use strict';
/** The pure parts of both send-and-wait operations, against the compiled modules. */
const path = require('node:path');

const dist = path.join(__dirname, '..', '..', 'dist', 'nodes', 'Messaging', 'sendAndWait');
const replyDist = path.join(dist, '..', 'sendAndWaitForReply');
const { requestMessageText, waitTillFrom, hasSignature, resumeMarker } = require(
	path.join(dist, 'links.js'),
);
const { ReplyWatcher } = require(path.join(replyDist, 'replyWatcher.js'));
const { isReply } = require(path.join(replyDist, 'replyMatch.js'));
const { orderShownBy } = require(path.join(replyDist, 'pageOrder.js'));
const { escapeHtml } = require(path.join(dist, 'pages.js'));
const { requestMessageId } = require(path.join(dist, 'requestLookup.js'));
const { readSubmission } = require(path.join(dist, 'formFields.js'));

describe('links', () => {
	test('the request text: the message, a blank line, one "Label: url" line per link', () => {
		expect(
			requestMessageText('Ship it?\n', [
				{ label: 'Yes\nplease', url: 'https://n8n/a' },
				{ label: 'No', url: 'https://n8n/b' },
			]),
		).toBe('Ship it?\n\nYes please: https://n8n/a\nNo: https://n8n/b');
	});

	test('Limit Wait Time: interval, date, none, and the problems', () => {
		const now = Date.UTC(2026, 0, 1);
		expect(
			waitTillFrom(
				{ limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' },
				now,
			),
		).toEqual(new Date(now + 45 * 60_000));
		expect(
			waitTillFrom(
				{ limitType: 'afterTimeInterval', resumeAmount: '1.5', resumeUnit: 'days' },
				now,
			),
		).toEqual(new Date(now + 36 * 3600_000));
		expect(
			waitTillFrom(
				{ limitType: 'atSpecifiedTime', maxDateAndTime: '2026-02-03T04:05:06.000Z' },
				now,
			),
		).toEqual(new Date('2026-02-03T04:05:06.000Z'));
		expect(waitTillFrom(undefined, now).getUTCFullYear()).toBe(3000); // n8n's WAIT_INDEFINITELY
		expect(waitTillFrom({}, now).getUTCFullYear()).toBe(3000);
		expect(
			waitTillFrom({ limitType: 'afterTimeInterval', resumeAmount: 0, resumeUnit: 'hours' }, now),
		).toEqual({ problem: 'must be a positive amount of hours (got "0")' });
		expect(
			waitTillFrom({ limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'weeks' }, now),
		).toEqual({ problem: 'has an unknown unit "weeks"' });
		expect(waitTillFrom({ limitType: 'atSpecifiedTime' }, now)).toEqual({
			problem: 'has no valid Max Date and Time (got "")',
		});
	});

	test('signature presence and the request message marker', () => {
		expect(
			hasSignature(
				'/webhook-waiting/12/abc?approved=true&signature=0a1b2c3d4e5f60718293a4b5c6d7e8f9',
			),
		).toBe(true);
		expect(hasSignature('/webhook-waiting/12/abc?approved=true')).toBe(false);
		expect(hasSignature('/webhook-waiting/12/abc?signature=')).toBe(false);
		expect(resumeMarker('/webhook-waiting/12/abc-def?approved=true&signature=00')).toBe(
			'/12/abc-def?',
		);
		expect(resumeMarker('/x')).toBeUndefined();
	});

	test('HTML escaping', () => {
		expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
			'&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
		);
	});
});

describe('reply matching', () => {
	const sent = {
		id: 'm10',
		conversation_id: 'c1',
		contact: { id: 'ct_me', username: 'me' },
		message: 'Q?',
		created_at: 100,
	};
	const filter = { conversationId: 'c1', own: ['ct_me', 'me'] };
	const from = (id, text, extra = {}) => ({
		id: `m_${id}_${text}`,
		conversation_id: 'c1',
		contact: { id, username: id.slice(3) },
		message: text,
		created_at: 101,
		...extra,
	});

	test('isReply: a sender given as a bare id, text or number, is compared as text', () => {
		const mine = {
			id: 'm11',
			conversation_id: 'c1',
			contact: 42,
			message: 'also',
			created_at: 101,
		};
		expect(isReply(mine, sent, { conversationId: 'c1', own: ['42'] })).toBe(false);
		expect(isReply({ ...mine, contact: '42' }, sent, { conversationId: 'c1', own: ['42'] })).toBe(
			false,
		);
		expect(isReply(mine, sent, { conversationId: 'c1', own: ['ct_me'] })).toBe(true);
	});

	test('isReply: own messages, other conversations, the sent message and older messages never count', () => {
		expect(isReply(from('ct_ann', 'yes'), sent, filter)).toBe(true);
		expect(isReply(sent, sent, filter)).toBe(false);
		expect(isReply(from('ct_me', 'mine'), sent, filter)).toBe(false);
		expect(
			isReply(
				{ ...from('ct_x', 'by name'), contact: { id: 'ct_x', username: 'me' } },
				sent,
				filter,
			),
		).toBe(false);
		expect(isReply(from('ct_ann', 'elsewhere', { conversation_id: 'c2' }), sent, filter)).toBe(
			false,
		);
		expect(isReply(from('ct_ann', 'old', { created_at: 99 }), sent, filter)).toBe(false);
		expect(isReply(from('ct_bob', 'yes'), sent, { ...filter, fromContact: '@ann' })).toBe(false);
		expect(isReply(from('ct_ann', 'yes'), sent, { ...filter, fromContact: '@ann' })).toBe(true);
		expect(isReply(from('ct_ann', 'maybe'), sent, { ...filter, pattern: /^(yes|no)\b/i })).toBe(
			false,
		);
	});

	test('isReply, Only From Contact: an ID matches by ID only, @ and a username the username only', () => {
		const eve = { ...from('ct_eve', 'yes'), contact: { id: 'ct_eve', username: 'ct_ann' } };
		expect(isReply(eve, sent, { ...filter, fromContact: 'ct_ann' })).toBe(false); // before: true
		expect(isReply(from('ct_ann', 'yes'), sent, { ...filter, fromContact: 'ct_ann' })).toBe(true);
		expect(isReply(eve, sent, { ...filter, fromContact: '@ct_ann' })).toBe(true);
		expect(isReply(from('ct_ann', 'yes'), sent, { ...filter, fromContact: 'ann' })).toBe(false);
		expect(
			isReply({ ...from('ct_x', 'yes'), contact: 42 }, sent, { ...filter, fromContact: '42' }),
		).toBe(true);
	});

	test('orderShownBy: neighbours, or the top of the first page against the sent message', () => {
		expect(
			orderShownBy(
				[
					{ id: 'a', created_at: 5 },
					{ id: 'b', created_at: 3 },
				],
				sent,
				false,
			),
		).toBe('newest_first');
		expect(
			orderShownBy(
				[
					{ id: 'a', created_at: 3 },
					{ id: 'b', created_at: 5 },
				],
				sent,
				false,
			),
		).toBe('oldest_first');
		expect(
			orderShownBy(
				[
					{ id: 'a', created_at: 100 },
					{ id: 'b', created_at: 100 },
				],
				sent,
				true,
			),
		).toBeUndefined();
		expect(orderShownBy([{ id: 'a', created_at: 120 }], sent, true)).toBe('newest_first');
		expect(orderShownBy([{ id: 'a', created_at: 80 }], sent, true)).toBe('oldest_first');
		expect(orderShownBy([{ id: 'a', created_at: 80 }], sent, false)).toBeUndefined();
	});

	test('orderShownBy: the way most neighbours go, so a late message at the top does not turn it', () => {
		// Newest first by insertion; the last one inserted is dated before the one under it.
		const page = [985, 1000, 990, 980, 970].map((at, i) => ({ id: `m${i}`, created_at: at }));
		expect(orderShownBy(page, sent, false)).toBe('newest_first'); // first pair: 'oldest_first'
		expect(orderShownBy(page.slice().reverse(), sent, false)).toBe('oldest_first');
		// A timestamp that is not a number shows nothing beside it; one pair each way shows nothing.
		const undated = [{ id: 'a', created_at: 5 }, { id: 'b' }, { id: 'c', created_at: 3 }];
		expect(orderShownBy(undated, sent, false)).toBeUndefined();
		expect(
			orderShownBy(
				[2, 3, 1].map((at) => ({ id: `x${at}`, created_at: at })),
				sent,
				false,
			),
		).toBe(undefined);
	});

	test('newest first with a late message at the top: the reply above the sent message is found', async () => {
		// Listed newest first (by insertion): the message inserted last carries an earlier date than the two before it.
		const list = [
			from('ct_bob', 'late', { created_at: 101 }),
			from('ct_ann', 'second', { created_at: 103 }),
			from('ct_ann', 'yes', { created_at: 102 }),
			sent,
			from('ct_ann', 'before', { created_at: 90 }),
		];
		const newestFirst = async (cursor, limit) => {
			const from = cursor === undefined ? 0 : list.findIndex((m) => m.id === cursor) + 1;
			return { data: list.slice(from, from + limit), hasMore: from + limit < list.length };
		};
		const watcher = new ReplyWatcher(sent, filter, newestFirst);
		expect((await watcher.check())?.message).toBe('yes'); // first pair's rule: no reply, ever
		expect(watcher.listOrder).toBe('newest_first');
	});

	test('a service that ignores the cursor: the watcher never loops and never returns a message twice', async () => {
		const list = [from('ct_ann', 'a'), from('ct_me', 'b'), sent].slice(0, 2);
		const calls = [];
		const watcher = new ReplyWatcher(
			sent,
			filter,
			async (cursor) => (calls.push(cursor), { data: list, hasMore: true }),
		);
		expect((await watcher.check()).message).toBe('a');
		expect(await watcher.check()).toBeUndefined();
		expect(calls.length).toBeLessThanOrEqual(4);
	});
});

describe('the request message among those holding its link', () => {
	const holding = [
		{ id: 'quote_by_ann', contact: { id: 'ct_ann' }, created_at: 12 },
		{ id: 'quote_by_bob', contact: { id: 'ct_bob' }, created_at: 11 },
		{ id: 'request', contact: { id: 'ct_me', username: 'me' }, created_at: 10 },
	];
	test('the oldest sent by Your Contact ID, matched by id or username; none of mine: null', () => {
		expect(requestMessageId(holding, 'ct_me', '')).toBe('request');
		expect(requestMessageId(holding, 'me', '')).toBe('request');
		// A group member's quote is never the request once we know who we are.
		expect(requestMessageId(holding.slice(0, 2), 'ct_me', '')).toBeNull();
	});
	test("without Your Contact ID: the oldest not sent by the direct conversation's contact", () => {
		expect(requestMessageId(holding, '', 'ct_ann')).toBe('request');
		expect(requestMessageId(holding.slice(0, 1), '', 'ct_ann')).toBeNull();
		expect(requestMessageId([], '', '')).toBeNull();
	});
});

describe('a Custom Form answer: numbers and dates only as a browser sends them', () => {
	const fields = [
		{ label: 'Amount', type: 'number', required: false, options: [], multiselect: false },
		{ label: 'Refund on', type: 'date', required: false, options: [], multiselect: false },
	];
	const submit = (amount, date) =>
		readSubmission(fields, { 'field-0': amount, 'field-1': date }, (i) => `field-${i}`);
	const amount = (value) => submit(value, '').data?.Amount;

	// HTML's "valid floating-point number": an input type=number sends nothing else (the exponent included).
	test.each([
		['12.5', 12.5],
		['-3', -3],
		['0', 0],
		['-0', 0],
		['007', 7],
		['.5', 0.5],
		['-.5', -0.5],
		['1e3', 1000],
		['1E-2', 0.01],
		['2e+2', 200],
		['', null],
	])('number %j is %j', (value, expected) => {
		expect(Object.is(amount(value), expected)).toBe(true);
	});

	test.each([
		'0x10',
		' 1e3 ',
		'1e3 ',
		'\t5',
		'+1',
		'1.',
		'1,5',
		'1_000',
		'0b1',
		'0o7',
		'--1',
		'1e',
		'e3',
		'.',
		'-',
		'12abc',
		'Infinity',
		'NaN',
		'1e400',
		'١٢',
	])('number %j is refused, naming the field', (value) => {
		expect(submit(value, '')).toEqual({
			problem: '"Amount" must be a number (like 12.5, -3 or 1e3).',
		});
	});

	test.each(['2026-12-31', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31', ''])(
		'date %j is kept as sent',
		(value) => {
			expect(submit('', value)).toEqual({ data: { Amount: null, 'Refund on': value } });
		},
	);

	test.each([
		'2026-02-31',
		'2026-02-29',
		'2100-02-29',
		'2026-04-31',
		'2026-13-01',
		'2026-00-10',
		'2026-01-00',
		'0000-01-01',
		'2026-1-5',
		'26-01-05',
		' 2026-01-05',
		'2026-01-05T00:00',
		'+002026-01-05',
		'２０２６-01-05',
	])('date %j is refused, naming the field', (value) => {
		expect(submit('', value)).toEqual({
			problem: '"Refund on" must be a date that exists, as YYYY-MM-DD.',
		});
	});
});
