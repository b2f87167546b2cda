'use strict';
/**
 * Who may decide an approval in the chat: an Approvers entry is a contact ID (matched by ID only) or
 * `@username`; an entry counts for one contact and a contact once; the account itself never decides.
 */
const {
	ApproverBook,
	KeywordTally,
	stateFromReactions,
} = require('../../dist/nodes/Messaging/sendAndWaitForReply/approval');

const OWN = ['ct_me', 'me'];
/** @returns {import('../../dist/nodes/Messaging/sendAndWaitForReply/approval').ApprovalRules} */
const keywordRules = (approvers) => ({
	mode: 'keyword',
	approvers,
	required: 1,
	approve: ['approve'],
	decline: ['decline'],
});
const from = (contact, message) => ({ id: `msg_${Math.random()}`, contact, message });
const tally = (approvers, messages) => {
	const t = new KeywordTally(keywordRules(approvers), OWN);
	t.add(messages);
	return t.state;
};

describe('approver entries', () => {
	test('an ID entry never matches a username: the impostor ct_eve (username ct_ann) does not count', () => {
		const state = tally(
			['ct_ann', 'ct_bob'],
			[
				from({ id: 'ct_eve', username: 'ct_ann' }, 'approve'),
				from({ id: 'ct_bob', username: 'bob' }, 'approve'),
			],
		);
		expect(state).toEqual({ approvedBy: ['ct_bob'], declinedBy: [] });
	});

	test('a sender without an ID decides nothing, even with an approver’s ID as username', () => {
		expect(tally(['ct_ann'], [from({ username: 'ct_ann' }, 'approve')])).toEqual({
			approvedBy: [],
			declinedBy: [],
		});
		expect(tally([], [from({ username: 'ann' }, 'decline')])).toEqual({
			approvedBy: [],
			declinedBy: [],
		});
	});

	test('@username: the first contact voting through it holds it; a later one with that name does not count', () => {
		const state = tally(
			['@ann', 'ct_bob'],
			[
				from({ id: 'ct_ann', username: 'ann' }, 'approve'),
				from({ id: 'ct_eve', username: 'ann' }, 'decline'),
				from({ id: 'ct_eve', username: 'ann' }, 'approve'),
			],
		);
		expect(state).toEqual({ approvedBy: ['ct_ann'], declinedBy: [] });
		// A message that is no vote holds nothing: the next voter through @ann takes it.
		expect(
			tally(
				['@ann'],
				[
					from({ id: 'ct_ann', username: 'ann' }, 'hello'),
					from({ id: 'ct_eve', username: 'ann' }, 'approve'),
				],
			),
		).toEqual({ approvedBy: ['ct_eve'], declinedBy: [] });
	});

	test('one contact counts once, whatever entries it matches; the account itself never decides', () => {
		const book = new ApproverBook(['ct_ann', '@ann', '@me', 'ct_me'], OWN);
		expect(book.voter('ct_ann', 'ann', true)).toBe('ct_ann');
		expect(book.voter('ct_eve', 'ann', true)).toBeUndefined(); // @ann is ct_ann's
		expect(book.voter('ct_me', 'me', true)).toBeUndefined();
		expect(book.voter('ct_x', 'me', true)).toBeUndefined(); // the account's username
		expect(
			tally(
				['ct_ann', '@ann'],
				[
					from({ id: 'ct_ann', username: 'ann' }, 'approve'),
					from({ id: 'ct_ann', username: 'ann' }, 'approve'),
				],
			),
		).toEqual({ approvedBy: ['ct_ann'], declinedBy: [] });
	});

	test('reactions: reactors are IDs, so only ID entries match them; @entries never do', () => {
		// Reactions read only the approvers and the two emoji lists.
		const rules =
			/** @type {import('../../dist/nodes/Messaging/sendAndWaitForReply/approval').ApprovalRules} */ ({
				approvers: ['@ann', 'ct_bob'],
				approve: ['+1'],
				decline: ['-1'],
			});
		expect(stateFromReactions([{ '+1': ['ann', 'ct_ann', 'ct_bob'] }], rules, OWN)).toEqual({
			approvedBy: ['ct_bob'],
			declinedBy: [],
		});
	});
});
