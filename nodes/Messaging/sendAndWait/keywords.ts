/**
 * Pure: what a reply says to Approval by Keyword. It approves only when it is an approve word alone (case,
 * punctuation and emoji aside); it declines when it says a decline word, not negated and not asked, and no
 * approve word besides. A question, a negation or a mix is no vote and takes back the sender's earlier one:
 * ambiguity never approves.
 */

export type KeywordVote = 'approve' | 'decline' | 'unclear';

export interface Keywords {
	approve: string[];
	decline: string[];
}

/** A word as people read it: letters, digits, marks and `_`; `'` and `-` inside a word keep it whole. */
const WORD = /[\p{L}\p{N}\p{M}_]+(?:['-][\p{L}\p{N}\p{M}_]+)*/gu;

/** Question marks of any script (after NFKC, which folds ？ ﹖ into ?). */
const QUESTION = /[?¿؟՞፧‽⸮]/u;

/** Signs that say no: beside an approve word they make the reply unclear. */
const NO_SIGN =
	/[\u{1F44E}\u{274C}\u{274E}\u{1F6AB}\u{26D4}\u{1F6D1}\u{270B}\u{1F645}\u{2716}-\u{2718}]/u;

/** A sentence ends at . ! ? ؟ 。 or a line break; the mark stays with its sentence. */
const SENTENCE_END = /(?<=[.!?؟。\n])/u;

/** A clause ends at a comma, semicolon, colon, dash or bracket: a negation reaches to its clause's end. */
const CLAUSE_END = /[,;:、،()[\]{}"«»“”„–—]/u;

/** Words that negate what follows within 3 words (and any word ending in n't). */
const NEGATIONS = new Set(
	(
		'not no never nor neither cannot cant dont doesnt didnt wont wouldnt shouldnt couldnt isnt ' +
		'arent wasnt werent hasnt havent without nein nicht kein keine nie niemals pas ne jamais non ' +
		'nunca não nao niet нет не ni'
	).split(' '),
);

/** Text as compared: NFKC (full-width letters fold), lower case, one apostrophe and one hyphen. */
function normalized(text: string): string {
	return text
		.normalize('NFKC')
		.toLowerCase()
		.replace(/[’‘ʼ`´]/gu, "'")
		.replace(/[\u2010\u2011]/gu, '-');
}

/** Lower-cased words (letters and digits of any script, `_`, `'` and `-` inside a word). */
export function wordsOf(text: string): string[] {
	return normalized(text).match(WORD) ?? [];
}

/** Whether a word negates: `not`, `never`, `don't`, … */
export function isNegation(word: string): boolean {
	return NEGATIONS.has(word) || word.endsWith("n't");
}

/** Text a person wrote, without quoted lines (`> …`): quoting "approve" is not approving. */
export function ownText(message: string): string {
	return message
		.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/u)
		.filter((line) => !/^\s*>/u.test(line))
		.join('\n');
}

/** Where `words` holds `phrase` as whole words in a row. */
function indexesOf(words: string[], phrase: string[]): number[] {
	const at: number[] = [];
	for (let i = 0; phrase.length > 0 && i + phrase.length <= words.length; i++) {
		if (phrase.every((w, j) => words[i + j] === w)) at.push(i);
	}
	return at;
}

/** Whether one phrase's words are another's. */
export function sameWords(a: string[], b: string[]): boolean {
	return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** Each place a phrase is said: whether it is negated (in its clause) or asked (in its sentence). */
function mentions(text: string, phrases: string[]): Array<{ firm: boolean }> {
	const found: Array<{ firm: boolean }> = [];
	for (const sentence of text.split(SENTENCE_END)) {
		const asked = QUESTION.test(sentence);
		for (const clause of sentence.split(CLAUSE_END)) {
			const words = clause.match(WORD) ?? [];
			for (const phrase of phrases) {
				for (const i of indexesOf(words, wordsOf(phrase))) {
					const negated = words.slice(Math.max(0, i - 3), i).some(isNegation);
					found.push({ firm: !negated && !asked });
				}
			}
		}
	}
	return found;
}

/**
 * What a reply says: 'approve', 'decline', 'unclear' (a keyword asked, negated, beside its opposite or a no
 * sign: no vote, and an earlier vote of the sender no longer counts), or undefined (no vote, no change).
 */
export function keywordVote(message: string, keywords: Keywords): KeywordVote | undefined {
	const text = ownText(normalized(message));
	const approves = mentions(text, keywords.approve);
	const declines = mentions(text, keywords.decline);
	if (declines.some((m) => m.firm)) return approves.some((m) => m.firm) ? 'unclear' : 'decline';
	if (declines.length > 0 || approves.some((m) => !m.firm)) return 'unclear';
	if (approves.length === 0) return undefined;
	if (NO_SIGN.test(text)) return 'unclear';
	const words = text.match(WORD) ?? [];
	const alone = keywords.approve.some((phrase) => sameWords(words, wordsOf(phrase)));
	// An approve word among other words ("Approved, go ahead") is no vote: only the word alone approves.
	return alone && !QUESTION.test(text) ? 'approve' : undefined;
}
