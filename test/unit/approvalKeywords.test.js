'use strict';
/**
 * Approval by Keyword: what real-looking replies say, as a table. `approve` only for an approve word alone
 * (case, punctuation and emoji aside); `decline` for a decline word not negated, not asked and without an
 * approve word; `unclear` (no vote, an earlier vote taken back) for a keyword asked, negated or mixed;
 * `none` for no vote and no change.
 */
const { keywordVote } = require('../../dist/nodes/Messaging/sendAndWaitForReply/keywords');

const DEFAULTS = { approve: ['approve', 'approved'], decline: ['decline', 'declined'] };
const CUSTOM = { approve: ['looks good', 'lgtm'], decline: ['no', 'hold'] };
const SPANISH = { approve: ['aprobado'], decline: ['rechazado'] };
const GERMAN = { approve: ['genehmigt'], decline: ['abgelehnt'] };
const JAPANESE = { approve: ['承認'], decline: ['却下'] };
const FRENCH = { approve: ['approuvé'], decline: ['refusé'] };

// [reply, words, expected]
/** @type {Array<[string, { approve: string[], decline: string[] }, string]>} */
const CORPUS = [
	// the approve word alone
	['approve', DEFAULTS, 'approve'],
	['Approved', DEFAULTS, 'approve'],
	['APPROVE!', DEFAULTS, 'approve'],
	['  approved.  ', DEFAULTS, 'approve'],
	['Approved ✅', DEFAULTS, 'approve'],
	['👍 approve', DEFAULTS, 'approve'],
	['¡Approved!', DEFAULTS, 'approve'],
	['approve。', DEFAULTS, 'approve'],
	['Approved！', DEFAULTS, 'approve'],
	['ＡＰＰＲＯＶＥ', DEFAULTS, 'approve'],
	['"approved"', DEFAULTS, 'approve'],
	['**approved**', DEFAULTS, 'approve'],
	['approve\n', DEFAULTS, 'approve'],
	['> Refund order 1042 (120 EUR)?\napproved', DEFAULTS, 'approve'],
	['Looks good!', CUSTOM, 'approve'],
	['LGTM 🚀', CUSTOM, 'approve'],
	['¡Aprobado!', SPANISH, 'approve'],
	['Genehmigt.', GERMAN, 'approve'],
	['承認。', JAPANESE, 'approve'],
	['Approuvé !', FRENCH, 'approve'],
	// questions
	['approve?', DEFAULTS, 'unclear'],
	['¿approve?', DEFAULTS, 'unclear'],
	['approved？', DEFAULTS, 'unclear'],
	['approve؟', DEFAULTS, 'unclear'],
	['Should I approve this?', DEFAULTS, 'unclear'],
	['lgtm?', CUSTOM, 'unclear'],
	['¿Aprobado?', SPANISH, 'unclear'],
	['承認？', JAPANESE, 'unclear'],
	// negations
	['I do not approve', DEFAULTS, 'unclear'],
	["don't approve", DEFAULTS, 'unclear'],
	['not approved', DEFAULTS, 'unclear'],
	['never approve this', DEFAULTS, 'unclear'],
	['I can’t approve that', DEFAULTS, 'unclear'],
	['not lgtm', CUSTOM, 'unclear'],
	['No aprobado', SPANISH, 'unclear'],
	['Nicht genehmigt', GERMAN, 'unclear'],
	// a no sign beside the approve word
	['approve 👎', DEFAULTS, 'unclear'],
	['approved ❌', DEFAULTS, 'unclear'],
	// one word as people read it, or the approve word among others: no vote
	['do_not_approve', DEFAULTS, 'none'],
	['approve_later', DEFAULTS, 'none'],
	['approve_or_decline', DEFAULTS, 'none'],
	['Approved, go ahead.', DEFAULTS, 'none'],
	['I approve', DEFAULTS, 'none'],
	['approve later', DEFAULTS, 'none'],
	['approve approve', DEFAULTS, 'none'],
	['approved\nthanks!', DEFAULTS, 'none'],
	['Approved.\n\nSent from my iPhone', DEFAULTS, 'none'],
	['approve\u2028thanks', DEFAULTS, 'none'],
	['looks good to me', CUSTOM, 'none'],
	// quotes and words inside other words
	['> approve', DEFAULTS, 'none'],
	['> approve\nwhat does this refund cover?', DEFAULTS, 'none'],
	['  > approved\n', DEFAULTS, 'none'],
	['disapproved', DEFAULTS, 'none'],
	['unapproved', DEFAULTS, 'none'],
	['threshold', CUSTOM, 'none'],
	['ok', DEFAULTS, 'none'],
	['👍', DEFAULTS, 'none'],
	['', DEFAULTS, 'none'],
	// declines
	['decline', DEFAULTS, 'decline'],
	['Declined.', DEFAULTS, 'decline'],
	['Declined, too risky', DEFAULTS, 'decline'],
	['Sorry, I have to decline this one.', DEFAULTS, 'decline'],
	['DECLINE 👎', DEFAULTS, 'decline'],
	['approve? no wait, decline', DEFAULTS, 'decline'],
	['decline. not approved', DEFAULTS, 'decline'],
	['Declined — I can’t approve this', DEFAULTS, 'decline'],
	['Declined. Why was this sent to me?', DEFAULTS, 'decline'],
	['no', CUSTOM, 'decline'],
	['No.', CUSTOM, 'decline'],
	['hold', CUSTOM, 'decline'],
	['it no longer looks good', CUSTOM, 'decline'],
	['Non, refusé.', FRENCH, 'decline'],
	['却下、理由は後で', JAPANESE, 'decline'],
	// declines asked, negated or beside an approve word: unclear
	['decline?', DEFAULTS, 'unclear'],
	['Should we decline it?', DEFAULTS, 'unclear'],
	['not declined', DEFAULTS, 'unclear'],
	["I won't decline", DEFAULTS, 'unclear'],
	['approve or decline?', DEFAULTS, 'unclear'],
	["I'd approve, but legal says decline", DEFAULTS, 'unclear'],
	['approved; oh wait, declined', DEFAULTS, 'unclear'],
	['no, lgtm', CUSTOM, 'unclear'],
	['lgtm, no changes needed', CUSTOM, 'unclear'],
];

describe('Approval by Keyword: a corpus of replies', () => {
	test('the corpus is large enough and each reply is listed once per word set', () => {
		expect(CORPUS.length).toBeGreaterThanOrEqual(40);
		const keys = CORPUS.map(([reply, words]) => `${words.approve[0]} ${reply}`);
		expect(new Set(keys).size).toBe(keys.length);
	});

	test.each(CORPUS)('%j (%j) → %s', (reply, words, expected) => {
		expect(keywordVote(reply, words) ?? 'none').toBe(expected);
	});
});
