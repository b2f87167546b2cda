/**
 * Pure: approval in the chat (Send and Wait for Reply's Approval by Reaction and Approval by Keyword).
 * Who may decide, what counts as approving or declining, and when the request is decided. A decline by an
 * approver wins over any number of approvals seen in the same check (a veto): a refund or a deployment
 * goes ahead only when nobody allowed said no.
 */
import { mayBeSender, namesSender, senderOf } from '../../shared/ids';
import { reactionsFromService } from '../helpers/reactions';
import { isNegation, keywordVote, sameWords, wordsOf } from './keywords';
import type { ListedMessage } from '../../shared/listedMessage';

export type ApprovalMode = 'reaction' | 'keyword';

export interface ApprovalRules {
	mode: ApprovalMode;
	/** Contact ids, or `@` and a username; empty: anyone but the account itself. */
	approvers: string[];
	required: number;
	approve: string[];
	decline: string[];
}

export interface ApprovalState {
	approvedBy: string[];
	declinedBy: string[];
}

export interface ApprovalOutcome extends ApprovalState {
	approved: boolean;
}

/** A reaction name as the service keys it: no spaces, colons or brackets (`+1`, `like`, `👍`). */
const REACTION_NAME = /^[^\s:[\]]{1,64}$/u;

/** Problems with the settings, as "<field> <problem>", or undefined. */
export function checkApprovalRules(
	rules: ApprovalRules,
): { field: string; problem: string } | undefined {
	if (!Number.isInteger(rules.required) || rules.required < 1)
		return {
			field: 'Approvals Required',
			problem: `must be a whole number of at least 1 (got ${rules.required})`,
		};
	if (rules.approvers.includes('@'))
		return { field: 'Approvers', problem: 'has "@" without a username after it' };
	if (rules.approvers.length > 0 && rules.required > new Set(rules.approvers).size) {
		return {
			field: 'Approvals Required',
			problem: `is ${rules.required}, more than the ${new Set(rules.approvers).size} approver(s) listed: the request could never be approved`,
		};
	}
	const [approveField, declineField] =
		rules.mode === 'reaction'
			? ['Approve Reaction', 'Decline Reaction']
			: ['Approve Words', 'Decline Words'];
	if (rules.approve.length === 0) return { field: approveField, problem: 'is empty' };
	if (rules.mode === 'reaction') {
		for (const [field, names] of [
			[approveField, rules.approve],
			[declineField, rules.decline],
		] as const) {
			const bad = names.find((n) => !REACTION_NAME.test(n));
			if (bad !== undefined)
				return {
					field,
					problem: `"${bad}" is not a reaction name (a name such as +1, like or 👍: no spaces, colons or brackets)`,
				};
		}
	} else {
		for (const [field, words] of [
			[approveField, rules.approve],
			[declineField, rules.decline],
		] as const) {
			const bad = words.find((w) => wordsOf(w).length === 0);
			if (bad !== undefined)
				return { field, problem: `"${bad}" has no letters or digits to match as a word` };
		}
	}
	const both = rules.approve.find((a) =>
		rules.decline.some((d) => normalized(a, rules.mode) === normalized(d, rules.mode)),
	);
	if (both !== undefined)
		return {
			field: declineField,
			problem: `"${both}" is also an approve ${rules.mode === 'reaction' ? 'reaction' : 'word'}`,
		};
	return rules.mode === 'keyword' ? checkApproveWords(rules) : undefined;
}

/** An approve word holding a negation or a decline word could never approve: said at once. */
function checkApproveWords(rules: ApprovalRules): { field: string; problem: string } | undefined {
	for (const phrase of rules.approve) {
		const words = wordsOf(phrase);
		const negation = words.find(isNegation);
		if (negation !== undefined)
			return {
				field: 'Approve Words',
				problem: `"${phrase}" holds "${negation}", a negation: a reply with a negation never approves`,
			};
		const decline = rules.decline.find((d) => holdsWords(words, wordsOf(d)));
		if (decline !== undefined)
			return {
				field: 'Approve Words',
				problem: `"${phrase}" holds the decline word "${decline}": a reply with a decline word never approves`,
			};
	}
	return undefined;
}

function holdsWords(words: string[], part: string[]): boolean {
	return words.some((_, i) => sameWords(words.slice(i, i + part.length), part));
}

function normalized(entry: string, mode: ApprovalMode): string {
	return mode === 'reaction' ? entry : wordsOf(entry).join(' ');
}

/**
 * Who may decide, and for which Approvers entry. An entry is a contact ID, matched by ID only (never by a
 * username, which its owner chooses), or `@` and a username (the second way). An entry counts for one contact:
 * the first whose vote came through it; a contact counts once, whatever entries it matches.
 */
export class ApproverBook {
	/** entry → the contact id it counts for */
	private readonly holders = new Map<string, string>();

	constructor(
		private readonly entries: string[],
		private readonly own: string[],
	) {}

	/** The id a vote counts under, or undefined when this contact may not decide; `claim` binds its entries. */
	voter(id: string | undefined, username: string | undefined, claim: boolean): string | undefined {
		if (id === undefined || mayBeSender(this.own, { id, username })) return undefined;
		if (this.entries.length === 0) return id;
		const mine = this.entries.filter(
			(entry) => namesSender(entry, { id, username }) && (this.holders.get(entry) ?? id) === id,
		);
		if (mine.length === 0) return undefined;
		if (claim) for (const entry of mine) this.holders.set(entry, id);
		return id;
	}
}

/** The decision, once there is one: any decline by an approver, or enough approvals. */
export function decide(state: ApprovalState, required: number): ApprovalOutcome | undefined {
	if (state.declinedBy.length > 0) return { approved: false, ...state };
	if (state.approvedBy.length >= required) return { approved: true, ...state };
	return undefined;
}

/**
 * Approval by Reaction: the state the sent message's reactions show now (a reaction removed before the
 * check counts for nothing). Reactors who reacted both ways count as declining.
 */
export function stateFromReactions(
	reactions: unknown,
	rules: ApprovalRules,
	own: string[],
): ApprovalState {
	const map = reactionsFromService(reactions);
	// A reactor is named by ID: `@username` entries never match one.
	const book = new ApproverBook(rules.approvers, own);
	const reactorsOf = (names: string[]) =>
		[...new Set(names.flatMap((n) => map[n] ?? []))].filter(
			(r) => book.voter(r, undefined, true) !== undefined,
		);
	const declinedBy = reactorsOf(rules.decline);
	const approvedBy = reactorsOf(rules.approve).filter((r) => !declinedBy.includes(r));
	return { approvedBy, declinedBy };
}

/**
 * Approval by Keyword: each approver's latest vote, from the messages read so far (oldest first), under the
 * sender's id. A person who first approves and then declines is declining; an unclear reply takes a vote back.
 */
export class KeywordTally {
	private readonly votes = new Map<string, 'approve' | 'decline'>();
	private readonly book: ApproverBook;

	constructor(
		private readonly rules: ApprovalRules,
		own: string[],
	) {
		this.book = new ApproverBook(rules.approvers, own);
	}

	add(messages: ListedMessage[]): void {
		for (const message of messages) {
			const text = typeof message.message === 'string' ? message.message : '';
			const vote = keywordVote(text, this.rules);
			if (vote === undefined) continue;
			const { id, username } = senderOf(message);
			const voter = this.book.voter(id, username, vote !== 'unclear');
			if (voter === undefined) continue;
			if (vote === 'unclear') this.votes.delete(voter);
			else this.votes.set(voter, vote);
		}
	}

	get state(): ApprovalState {
		const of = (vote: string) => [...this.votes].filter(([, v]) => v === vote).map(([who]) => who);
		return { approvedBy: of('approve'), declinedBy: of('decline') };
	}
}

/** The line added below the message: how to answer. */
export function instructionLine(rules: ApprovalRules): string {
	const quote = (list: string[]) => list.map((w) => `"${w}"`).join(' or ');
	if (rules.mode === 'reaction') {
		const decline = rules.decline.length > 0 ? `, ${quote(rules.decline)} to decline` : '';
		return `React with ${quote(rules.approve)} to approve${decline}.`;
	}
	const decline = rules.decline.length > 0 ? `, or ${quote(rules.decline)} to decline` : '';
	return `Reply ${quote(rules.approve)} (nothing else) to approve${decline}.`;
}
