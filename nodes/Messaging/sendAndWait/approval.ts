/**
 * Pure: approval in the chat (Send and Wait for Reply's Approval by Reaction and Approval by Keyword).
 * Who may decide, what counts as approving or declining, and when the request is decided. A decline by an
 * approver wins over any number of approvals seen in the same check (a veto): a refund or a deployment
 * goes ahead only when nobody allowed said no.
 */
import { idText, senderOf } from '../../shared/ids';
import { reactionsFromService } from '../helpers/reactions';
import type { ChatMessage } from './replyWatcher';

export type ApprovalMode = 'reaction' | 'keyword';

export interface ApprovalRules {
	mode: ApprovalMode;
	/** Contact ids or usernames; empty: anyone but the account itself. */
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

/** The words of a comma-separated list, trimmed, empty entries reported. */
export function listEntries(value: string): { entries: string[]; empty: boolean } {
	const parts = value.split(',').map((p) => p.trim());
	const entries = parts.filter((p) => p !== '');
	return { entries, empty: value.trim() !== '' && entries.length !== parts.length };
}

/** Problems with the settings, as "<field> <problem>", or undefined. */
export function checkApprovalRules(
	rules: ApprovalRules,
): { field: string; problem: string } | undefined {
	if (!Number.isInteger(rules.required) || rules.required < 1)
		return {
			field: 'Approvals Required',
			problem: `must be a whole number of at least 1 (got ${rules.required})`,
		};
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
	return undefined;
}

function normalized(entry: string, mode: ApprovalMode): string {
	return mode === 'reaction' ? entry : wordsOf(entry).join(' ');
}

/** Whether `who` (a reactor, or a sender's id and username) may decide. */
function allowed(who: Array<string | undefined>, own: string[], approvers: string[]): boolean {
	const names = who.filter((w): w is string => w !== undefined && w !== '');
	if (names.length === 0 || names.some((n) => own.includes(n))) return false;
	return approvers.length === 0 || names.some((n) => approvers.includes(n));
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
	const reactorsOf = (names: string[]) =>
		[...new Set(names.flatMap((n) => map[n] ?? []))].filter((r) =>
			allowed([r], own, rules.approvers),
		);
	const declinedBy = reactorsOf(rules.decline);
	const approvedBy = reactorsOf(rules.approve).filter((r) => !declinedBy.includes(r));
	return { approvedBy, declinedBy };
}

/** Lower-cased words (letters and digits of any script); `'` and `-` inside a word keep it whole. */
export function wordsOf(text: string): string[] {
	return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Text a person wrote, without quoted lines (`> …`): quoting "approve" is not approving. */
export function ownText(message: string): string {
	return message
		.split(/\r?\n/)
		.filter((line) => !/^\s*>/.test(line))
		.join('\n');
}

/** Whether `words` holds `phrase` (one or more words) as whole words in a row. */
function holdsPhrase(words: string[], phrase: string[]): boolean {
	for (let i = 0; i + phrase.length <= words.length; i++) {
		if (phrase.every((w, j) => words[i + j] === w)) return true;
	}
	return false;
}

/** What a message says: 'decline' when it holds a decline word (even beside an approve word), else 'approve'. */
export function keywordVote(
	text: string,
	rules: Pick<ApprovalRules, 'approve' | 'decline'>,
): 'approve' | 'decline' | undefined {
	const words = wordsOf(ownText(text));
	if (rules.decline.some((d) => holdsPhrase(words, wordsOf(d)))) return 'decline';
	if (rules.approve.some((a) => holdsPhrase(words, wordsOf(a)))) return 'approve';
	return undefined;
}

/**
 * Approval by Keyword: each approver's latest vote, from the messages read so far (oldest first). A person
 * who first approves and then declines is declining.
 */
export class KeywordTally {
	private readonly votes = new Map<string, 'approve' | 'decline'>();

	constructor(
		private readonly rules: ApprovalRules,
		private readonly own: string[],
	) {}

	add(messages: ChatMessage[]): void {
		for (const message of messages) {
			const { id, username } = senderOf(message);
			if (!allowed([id, username], this.own, this.rules.approvers)) continue;
			const vote = keywordVote(
				typeof message.message === 'string' ? message.message : '',
				this.rules,
			);
			const voter = id ?? username ?? idText(message.contact);
			if (vote && voter) this.votes.set(voter, vote);
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
	return `Reply ${quote(rules.approve)} to approve${decline}.`;
}
