/**
 * Pure: text made for a chat. An AI model's Markdown turned into plain text a chat shows as written, and a
 * long text split into messages a service accepts. docs/chat-text.md.
 */

/** A code fence's line (``` or ~~~, with an optional language). */
const FENCE = /^\s*(```|~~~)/;

/** Inline Markdown of one line outside code: links, emphasis, inline code, escapes. */
function plainInline(line: string): string {
	const kept: string[] = [];
	const keep = (text: string) => `\uE000${kept.push(text) - 1}\uE000`;
	// Inline code and escaped characters are kept verbatim: taken out first, put back last.
	let text = line
		.replace(/`+([^`]+?)`+/g, (_m, inner: string) => keep(inner))
		.replace(/\\([\\`*_{}[\]()#+\-.!>~|])/g, (_m, char: string) => keep(char));
	text = text
		.replace(/!\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_m, alt: string, url: string) =>
			alt ? `${alt} (${url})` : url,
		)
		.replace(/\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_m, label: string, url: string) =>
			label === url || `mailto:${label}` === url ? label : `${label} (${url})`,
		)
		.replace(/<(https?:\/\/[^>\s]+)>/g, '$1')
		.replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
		.replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
		// Single * or _ only around words, so snake_case and 2*3*4 stay as written.
		.replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, '$1$2')
		.replace(/(^|[^\w])_(?=\S)([^_\n]*?\S)_(?!\w)/g, '$1$2');
	return text.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => kept[Number(i)]);
}

/**
 * Markdown as plain text: headings and emphasis marks dropped, links as "text (url)", bullets as "•",
 * numbered lists, quotes and code (its fences dropped) kept as written.
 */
export function plainTextFromMarkdown(markdown: string): string {
	const out: string[] = [];
	let inCode = false;
	for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
		if (FENCE.test(line)) {
			inCode = !inCode;
			continue;
		}
		if (inCode) {
			out.push(line);
			continue;
		}
		if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
			out.push('');
			continue;
		}
		const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (heading) {
			out.push(plainInline(heading[1]));
			continue;
		}
		const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
		if (bullet) {
			const box = bullet[2] ? (bullet[2].trim() === '[ ]' ? '☐ ' : '☑ ') : '';
			out.push(`${bullet[1]}• ${box}${plainInline(bullet[3])}`);
			continue;
		}
		out.push(plainInline(line));
	}
	return out
		.join('\n')
		.replace(/\n{3,}/g, '\n\n')
		.trim();
}

/** Where a part may end, best first: after a paragraph, a sentence, a line, a word. */
const BOUNDARIES = [/\n\s*\n/g, /[.!?…]["')\]]*\s+|[。！？][」』"')\]]*\s*/g, /\n/g, /\s+/g];

/** The last match of `pattern` in `window` that ends past `from`: [start, end) of the separator. */
function lastBoundary(window: string, pattern: RegExp, from: number): [number, number] | undefined {
	let found: [number, number] | undefined;
	for (const m of window.matchAll(pattern)) {
		const end = m.index + m[0].length;
		if (m.index >= from) found = [m.index, end];
	}
	return found;
}

/**
 * A text in parts of at most `max` UTF-16 units (what services' limits count), cut at the best boundary
 * in the last half of each part, else mid-word but never inside a surrogate pair. Only the whitespace at a
 * cut is dropped (a sentence's closing mark stays with its sentence); every other character is kept.
 */
export function splitText(text: string, max: number): string[] {
	if (!Number.isInteger(max) || max < 1) throw new Error(`must be a whole number of at least 1`);
	const parts: string[] = [];
	let rest = text;
	while (rest.length > max) {
		const window = rest.slice(0, max + 1);
		let cut: [number, number] | undefined;
		for (const pattern of BOUNDARIES) {
			cut = lastBoundary(window, pattern, Math.floor(max / 2));
			if (cut) break;
		}
		let [end, next] = cut ?? [max, max];
		if (cut) {
			// Keep a sentence's mark: cut after it, dropping only the whitespace that follows.
			const mark = /^[^\s]*/.exec(rest.slice(end, next))?.[0] ?? '';
			end += mark.length;
			if (end > max) [end, next] = [max, max];
		}
		if (end === next) {
			const code = rest.charCodeAt(end - 1);
			if (code >= 0xd800 && code <= 0xdbff && end > 1) next = end = end - 1;
		}
		parts.push(rest.slice(0, end));
		rest = cut && end !== next ? rest.slice(next).replace(/^\s+/, '') : rest.slice(next);
	}
	if (rest !== '' || parts.length === 0) parts.push(rest);
	return parts;
}
