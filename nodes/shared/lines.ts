/**
 * Text from other people laid out in lines a model or a person reads (a transcript, a review request).
 * A contact must not be able to start a line of their own: every character some reader takes for a line
 * break is one here, and text is cut only between whole characters. Pure.
 */

/**
 * Every line separator a reader may break a line at: CRLF, CR, LF, VT, FF, NEL, U+2028, U+2029, and the
 * file, group and record separators (U+001C–U+001E), which Python's `splitlines()` also breaks at.
 */
const LINE_BREAKS = new Set([
	'\r\n',
	'\n',
	'\v',
	'\f',
	'\r',
	'\x1c',
	'\x1d',
	'\x1e',
	'\x85',
	'\u2028',
	'\u2029',
]);

/** `text` with each line break as `\n` followed by `indent`, so no continuation starts a line unindented. */
export function indentLines(text: string, indent: string): string {
	// Candidates by category, the breaks by the set: the lint refuses control characters in a pattern.
	return text.replace(/\r\n|[\p{Cc}\u2028\u2029]/gu, (c) =>
		LINE_BREAKS.has(c) ? `\n${indent}` : c,
	);
}

// Control characters (tab and every line break included) read as a space in a one-line name.
const CONTROL = /[\p{Cc}\u2028\u2029]/gu;
// Invisible format characters (bidi overrides and isolates, marks, zero-width space, tags, BOM...), but
// not the zero-width joiner and non-joiner, which emoji sequences and several scripts need.
const INVISIBLE = /(?![\u200c\u200d])\p{Cf}/gu;

/**
 * A name from the service (a username, an attachment's name) on one line: controls and line breaks become
 * spaces, invisible format characters are removed, spaces are collapsed and trimmed.
 */
export function oneLine(text: string): string {
	return text.replace(CONTROL, ' ').replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
}

const graphemes =
	typeof Intl === 'object' && typeof Intl.Segmenter === 'function'
		? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
		: undefined;

/**
 * The longest start of `text` at most `max` UTF-16 code units long (JavaScript's `length`) that ends
 * between two characters as a reader sees them (grapheme clusters: an emoji with its skin tone, a ZWJ
 * sequence, a letter with its accents), never inside a surrogate pair.
 */
export function cutText(text: string, max: number): string {
	if (text.length <= max) return text;
	if (max <= 0) return '';
	if (graphemes === undefined) return cutAtCodePoint(text, max);
	// A break depends on the characters before it and the one after: two code units past the cut suffice.
	let end = 0;
	for (const { segment } of graphemes.segment(text.slice(0, max + 2))) {
		if (end + segment.length > max) break;
		end += segment.length;
	}
	return text.slice(0, end);
}

function cutAtCodePoint(text: string, max: number): string {
	const last = text.charCodeAt(max - 1);
	// A high surrogate at the end would be half a character.
	return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
