'use strict';
/**
 * Send and Wait for Reply's approval in the chat, through n8n-core's WorkflowExecute against the sandbox:
 * by reaction (read off the sent message, one GET per check) and by keyword (the replies), the approver
 * rules, the veto, time-out, cancellation and bad input.
 */
const path = require('node:path');
const { runMessagingNode, startMessagingRun } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');
const { stateFromReactions, decide } = require(
	path.join(__dirname, '../../dist/nodes/Messaging/sendAndWait/approval.js'),
);
const { keywordVote, wordsOf } = require(
	path.join(__dirname, '../../dist/nodes/Messaging/sendAndWait/keywords.js'),
);

let sandbox;
let credentials;
let store;
const INBOX = 'conv_00000001';

beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	store = sandbox.store;
	for (const id of ['ct_ann', 'ct_bob', 'ct_cy']) store.addContact({ id, username: id.slice(3) });
	store.createConversation({ contact_id: 'ct_ann' });
	store.sendMessage(
		'ct_ann',
		{ conversation_id: INBOX, message: 'earlier' },
		{ createdAt: 1_700_000_000 },
	);
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const QUESTION = 'Refund order 1042 (120 EUR)?';
const parameters = (extra = {}) => ({
	resource: 'message',
	operation: 'sendAndWaitForReply',
	conversationId: byId(INBOX),
	message: QUESTION,
	responseType: 'approvalByReaction',
	replyTimeout: 5,
	checkInterval: 0.05,
	...extra,
});
const sent = () => [...store.messages.values()].find((m) => m.message.startsWith(QUESTION));
const requests = () =>
	sandbox.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/messages'));
const react = (reactions) => store.updateMessage(sent().id, { reactions });

/** Runs `step` once the question is sent and checked at least `afterChecks` more times. */
async function after(step, afterChecks = 1) {
	const start = requests().length;
	for (let i = 0; i < 600; i++) {
		if (sent() && requests().length >= start + afterChecks) return step(sent());
		await new Promise((r) => setTimeout(r, 5));
	}
	throw new Error('the question was never sent or checked');
}

describe('Approval by Reaction', () => {
	test('the message asks to react; an allowed approver’s reaction approves; one GET of the message per check', async () => {
		const run = startMessagingRun({
			parameters: parameters({ approvers: 'ann, ct_bob' }),
			credentials,
		});
		await after(() => react({ '+1': ['ct_me', 'ct_cy'] })); // the account itself, someone not allowed
		await after(() => react({ '+1': ['ct_me', 'ct_cy', 'ann'] }), 2);
		const { items, error } = await run.done;
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({
			sent: expect.objectContaining({
				message: `${QUESTION}\n\nReact with "+1" to approve, "-1" to decline.`,
			}),
			approved: true,
			approvedBy: ['ann'],
			declinedBy: [],
			respondedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
			timedOut: false,
		});
		const checks = requests();
		expect(checks.length).toBeGreaterThanOrEqual(3);
		expect(new Set(checks.map((r) => `${r.method} ${r.path}`))).toEqual(
			new Set([`GET /v1/messages/${sent().id}`]),
		);
	});

	test('two approvals required: one is not enough; a reaction removed before the check does not count', async () => {
		const run = startMessagingRun({
			parameters: parameters({ approvalsRequired: 2 }),
			credentials,
		});
		await after(() => react({ '+1': ['ct_ann'] }));
		await after(() => react({ '+1': ['ct_bob'] }), 2); // ann took hers back
		await after(() => react({ '+1': ['ct_bob', 'ct_cy'] }), 2);
		const { items } = await run.done;
		expect(items[0].json).toMatchObject({
			approved: true,
			approvedBy: ['ct_bob', 'ct_cy'],
			declinedBy: [],
		});
	});

	test('approve and decline both present: the decline wins (a veto), even against enough approvals', async () => {
		const run = startMessagingRun({ parameters: parameters(), credentials });
		await after(() => react({ '+1': ['ct_ann', 'ct_bob'], '-1': ['ct_cy', 'ct_me'] }));
		const { items } = await run.done;
		expect(items[0].json).toMatchObject({
			approved: false,
			approvedBy: ['ct_ann', 'ct_bob'],
			declinedBy: ['ct_cy'],
			timedOut: false,
		});
	});

	test('time-out: approved null with what was seen, after the wait’s length; cancel ends it at once', async () => {
		const started = Date.now();
		const { items } = await startMessagingRun({
			parameters: parameters({ replyTimeout: 0.4, approvalsRequired: 2 }),
			credentials,
		}).done;
		expect(Date.now() - started).toBeGreaterThanOrEqual(400);
		expect(items[0].json).toMatchObject({
			approved: null,
			approvedBy: [],
			declinedBy: [],
			respondedAt: null,
			timedOut: true,
		});

		const failed = await startMessagingRun({
			parameters: parameters({ replyTimeout: 0.2, onTimeout: 'error' }),
			credentials,
		}).done;
		expect(failed.error.message).toBe('No decision came within 0.2 s');
	});

	test('cancelling the execution ends the approval wait at once, with no check after', async () => {
		const run = startMessagingRun({
			parameters: parameters({ checkInterval: 30, replyTimeout: 600 }),
			credentials,
		});
		await after(() => undefined);
		const started = Date.now();
		const checksBefore = requests().length;
		run.cancel();
		const result = await run.done;
		expect(result.status).toBe('canceled');
		expect(Date.now() - started).toBeLessThan(1000);
		await new Promise((r) => setTimeout(r, 100));
		expect(requests().length).toBe(checksBefore);
	});

	test('the question deleted during the wait: the wait fails saying so', async () => {
		const run = startMessagingRun({ parameters: parameters(), credentials });
		await after((message) => store.deleteMessage(message.id));
		const { error } = await run.done;
		expect(error.message).toMatch(
			/^The request message msg_\w+ was deleted while waiting for approval$/,
		);
	});

	test.each([
		[
			{ approvers: 'ann, , bob' },
			'Approvers has an empty entry ("ann, , bob"): remove the extra comma',
		],
		[
			{ approvers: 'ann', approvalsRequired: 2 },
			'Approvals Required is 2, more than the 1 approver(s) listed: the request could never be approved',
		],
		[{ approvalsRequired: 0 }, 'Approvals Required must be a whole number of at least 1 (got 0)'],
		[
			{ approveReaction: ':+1:' },
			'Approve Reaction ":+1:" is not a reaction name (a name such as +1, like or 👍: no spaces, colons or brackets)',
		],
		[{ declineReaction: '+1' }, 'Decline Reaction "+1" is also an approve reaction'],
		[{ approveReaction: '' }, 'Approve Reaction is empty'],
		[
			{ responseType: 'approvalByKeyword', approveWords: '!!' },
			'Approve Words "!!" has no letters or digits to match as a word',
		],
		[{ approvers: 'ct_ann, @' }, 'Approvers has "@" without a username after it'],
		[
			{ responseType: 'approvalByKeyword', approveWords: 'approve, not bad' },
			'Approve Words "not bad" holds "not", a negation: a reply with a negation never approves',
		],
		[
			{ responseType: 'approvalByKeyword', approveWords: 'ship it, hold on', declineWords: 'hold' },
			'Approve Words "hold on" holds the decline word "hold": a reply with a decline word never approves',
		],
	])(
		'bad input %j: an error naming the field and the item, nothing sent',
		async (extra, message) => {
			const { error } = await runMessagingNode({ parameters: parameters(extra), credentials });
			expect(error.message).toBe(message);
			expect(sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
		},
	);
});

describe('Approval by Keyword', () => {
	const keyword = (extra) => parameters({ responseType: 'approvalByKeyword', ...extra });
	const say = (who, message) => store.sendMessage(who, { conversation_id: INBOX, message });

	test('the approve word alone from an allowed approver decides; quoted text, other words, self and others do not', async () => {
		const run = startMessagingRun({
			parameters: keyword({ approvers: '@ann, @bob' }),
			credentials,
		});
		await after(() => {
			say('ct_me', 'approve'); // the account itself
			say('ct_cy', 'APPROVE'); // not an approver
			say('ct_ann', '> approve\nwhat does this refund cover?'); // quoting is not approving
			say('ct_ann', 'disapproved of by legal? unapproved?'); // the word inside another word
			say('ct_ann', 'Approved, go ahead.'); // the word among others
			say('ct_ann', 'approve_later'); // one word as people read it
		});
		await after(() => say('ct_bob', 'Approved!'), 2);
		const { items } = await run.done;
		expect(items[0].json).toMatchObject({
			sent: {
				message: `${QUESTION}\n\nReply "approve" or "approved" (nothing else) to approve, or "decline" or "declined" to decline.`,
			},
			approved: true,
			approvedBy: ['ct_bob'],
			declinedBy: [],
			timedOut: false,
		});
	});

	test('a later reply of the same approver replaces the earlier: approve, then a decline', async () => {
		const run = startMessagingRun({ parameters: keyword({ approvalsRequired: 2 }), credentials });
		await after(() => say('ct_ann', 'approve'));
		await after(() => say('ct_ann', 'approve? no wait, decline'), 2);
		const { items } = await run.done;
		expect(items[0].json).toMatchObject({
			approved: false,
			approvedBy: [],
			declinedBy: ['ct_ann'],
		});
	});

	test('an unclear reply ("don’t approve yet") takes the approver’s earlier approval back', async () => {
		const run = startMessagingRun({ parameters: keyword({ approvalsRequired: 2 }), credentials });
		await after(() => say('ct_ann', 'approve'));
		await after(() => say('ct_ann', 'wait, don’t approve yet'), 2);
		await after(() => say('ct_bob', 'approve'), 2); // one approval of the two
		await after(() => say('ct_cy', 'approve'), 2);
		const { items } = await run.done;
		expect(items[0].json).toMatchObject({
			approved: true,
			approvedBy: ['ct_bob', 'ct_cy'],
			declinedBy: [],
		});
	});

	test('impersonation: a contact whose username is an approver’s ID never votes for that approver', async () => {
		store.addContact({ id: 'ct_eve', username: 'ct_ann' });
		const run = startMessagingRun({
			parameters: keyword({ approvers: 'ct_ann, ct_bob', approvalsRequired: 2 }),
			credentials,
		});
		await after(() => say('ct_eve', 'approve'));
		await after(() => say('ct_bob', 'approve'), 2);
		await after(() => say('ct_ann', 'approve'), 2); // until here, one approval of the two
		const { items } = await run.done;
		expect(items[0].json).toMatchObject({
			approved: true,
			approvedBy: ['ct_bob', 'ct_ann'],
			declinedBy: [],
		});
	});

	test('@username entries: an entry counts for the first contact voting through it, and a contact once', async () => {
		const run = startMessagingRun({
			parameters: keyword({ approvers: 'ct_ann, @ann, @bob', approvalsRequired: 2 }),
			credentials,
		});
		await after(() => say('ct_ann', 'approve')); // through ct_ann and @ann: one approval
		await after(() => {
			store.addContact({ id: 'ct_eve', username: 'ann' });
			say('ct_eve', 'approve'); // @ann counts for ct_ann already
		}, 2);
		await after(() => say('ct_bob', 'approve'), 2);
		const { items } = await run.done;
		expect(items[0].json).toMatchObject({
			approved: true,
			approvedBy: ['ct_ann', 'ct_bob'],
			declinedBy: [],
		});
	});
});

describe('pure rules', () => {
	test('words: case-insensitive, whole words of any script as people read them, phrases in a row', () => {
		expect(wordsOf('Ship-it, LGTM! Ça va; do_not_approve, don’t')).toEqual([
			'ship-it',
			'lgtm',
			'ça',
			'va',
			'do_not_approve',
			"don't",
		]);
		const rules = { approve: ['ship it', 'lgtm'], decline: ['hold'] };
		expect(keywordVote('Ship it!', rules)).toBe('approve');
		expect(keywordVote('ok ship it', rules)).toBeUndefined();
		expect(keywordVote('shipit', rules)).toBeUndefined();
		expect(keywordVote('LGTM', rules)).toBe('approve');
		expect(keywordVote('HOLD', rules)).toBe('decline');
		expect(keywordVote('lgtm but HOLD', rules)).toBe('unclear');
		expect(keywordVote('threshold', rules)).toBeUndefined();
	});

	test('reactions: self and strangers ignored, both ways is a decline; the decision', () => {
		const rules = { approvers: [], approve: ['+1', 'like'], decline: ['-1'] };
		const state = stateFromReactions(
			[{ '+1': ['ct_a', 'ct_me'] }, { like: ['ct_a', 'ct_b'] }, { '-1': ['ct_b'] }],
			rules,
			['ct_me', 'me'],
		);
		expect(state).toEqual({ approvedBy: ['ct_a'], declinedBy: ['ct_b'] });
		expect(decide(state, 1)).toEqual({ approved: false, ...state });
		expect(decide({ approvedBy: ['a'], declinedBy: [] }, 2)).toBeUndefined();
		expect(decide({ approvedBy: ['a', 'b'], declinedBy: [] }, 2)).toMatchObject({ approved: true });
	});
});
