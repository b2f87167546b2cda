/** Pure: a regular expression a user typed, read into a tree; linearPattern.ts compiles and runs it. */

export type CharTest = (c: string) => boolean;
export type Assertion = 'start' | 'end' | 'word' | 'notWord';

export type Node =
	| { kind: 'char'; test: CharTest }
	| { kind: 'assert'; what: Assertion }
	| { kind: 'seq'; items: Node[] }
	| { kind: 'alt'; options: Node[] }
	| { kind: 'repeat'; item: Node; min: number; max: number };

export class PatternProblem extends Error {}

export const LINE_END = /[\n\r\u2028\u2029]/;
export const WORD = /[A-Za-z0-9_]/;
const SPACE = /\s/;

const classEscapes: Record<string, CharTest> = {
	d: (c) => c >= '0' && c <= '9',
	D: (c) => !(c >= '0' && c <= '9'),
	w: (c) => WORD.test(c),
	W: (c) => !WORD.test(c),
	s: (c) => SPACE.test(c),
	S: (c) => !SPACE.test(c),
};

const controlEscapes: Record<string, string> = {
	n: '\n',
	r: '\r',
	t: '\t',
	f: '\f',
	v: '\v',
	'0': '\0',
};

export class Parser {
	private pos = 0;

	constructor(
		private readonly source: string[],
		private readonly flags: { i: boolean; s: boolean; m: boolean },
	) {}

	parse(): Node {
		const node = this.alternation();
		if (this.pos < this.source.length) throw new PatternProblem(`has an unmatched ")"`);
		return node;
	}

	private peek(offset = 0): string | undefined {
		return this.source[this.pos + offset];
	}

	private alternation(): Node {
		const options = [this.sequence()];
		while (this.peek() === '|') {
			this.pos++;
			options.push(this.sequence());
		}
		return options.length === 1 ? options[0] : { kind: 'alt', options };
	}

	private sequence(): Node {
		const items: Node[] = [];
		while (this.pos < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
			items.push(this.quantified(this.atom()));
		}
		return { kind: 'seq', items };
	}

	private quantified(item: Node): Node {
		for (;;) {
			const c = this.peek();
			let min: number;
			let max: number;
			if (c === '*') [min, max] = [0, Infinity];
			else if (c === '+') [min, max] = [1, Infinity];
			else if (c === '?') [min, max] = [0, 1];
			else if (c === '{') {
				const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.pos).join(''));
				if (!braces) return item;
				min = Number(braces[1]);
				max = braces[2] === undefined ? min : braces[3] === '' ? Infinity : Number(braces[3]);
				this.pos += braces[0].length - 1;
			} else return item;
			this.pos++;
			if (this.peek() === '?') this.pos++; // lazy or greedy: the same for "does it match"
			if (item.kind === 'assert') throw new PatternProblem('has a quantifier after an anchor');
			item = { kind: 'repeat', item, min, max };
		}
	}

	private atom(): Node {
		const c = this.source[this.pos++];
		switch (c) {
			case '^':
				return { kind: 'assert', what: 'start' };
			case '$':
				return { kind: 'assert', what: 'end' };
			case '.':
				return this.char(this.flags.s ? () => true : (x) => !LINE_END.test(x));
			case '(':
				return this.group();
			case '[':
				return this.char(this.charClass());
			case '\\':
				return this.escape();
			case '*':
			case '+':
			case '?':
				throw new PatternProblem(`has nothing to repeat before "${c}"`);
			default:
				return this.literal(c);
		}
	}

	private group(): Node {
		if (this.peek() === '?') {
			const next = this.peek(1);
			if (next === ':') this.pos += 2;
			else if (next === '<' && /[A-Za-z_$]/.test(this.peek(2) ?? '')) {
				while (this.pos < this.source.length && this.peek() !== '>') this.pos++;
				this.pos++;
			} else {
				throw new PatternProblem(
					'uses a lookahead or lookbehind, which needs a backtracking engine: it is not supported here',
				);
			}
		}
		const inner = this.alternation();
		if (this.source[this.pos++] !== ')') throw new PatternProblem('has an unclosed "("');
		return inner;
	}

	private escape(): Node {
		const c = this.source[this.pos++];
		if (c === undefined) throw new PatternProblem('ends with a lone "\\"');
		if (c === 'b') return { kind: 'assert', what: 'word' };
		if (c === 'B') return { kind: 'assert', what: 'notWord' };
		if (/[1-9]/.test(c) || (c === 'k' && this.peek() === '<')) {
			throw new PatternProblem(
				'uses a backreference, which needs a backtracking engine: it is not supported here',
			);
		}
		if (classEscapes[c]) return this.char(classEscapes[c]);
		return this.literal(this.escapedChar(c));
	}

	/** The character an escape outside \d\w\s and friends stands for. */
	private escapedChar(c: string): string {
		if (controlEscapes[c] !== undefined) return controlEscapes[c];
		const hex = (length: number) => {
			const digits = this.source.slice(this.pos, this.pos + length).join('');
			if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(digits)) return undefined;
			this.pos += length;
			return String.fromCodePoint(parseInt(digits, 16));
		};
		if (c === 'x') return hex(2) ?? 'x';
		if (c === 'u') {
			if (this.peek() === '{') {
				const end = this.source.indexOf('}', this.pos);
				const code = parseInt(this.source.slice(this.pos + 1, end).join(''), 16);
				if (end < 0 || !Number.isFinite(code)) throw new PatternProblem('has a bad \\u{…} escape');
				this.pos = end + 1;
				return String.fromCodePoint(code);
			}
			return hex(4) ?? 'u';
		}
		if (c === 'c' && /[A-Za-z]/.test(this.peek() ?? '')) {
			return String.fromCharCode(this.source[this.pos++].charCodeAt(0) % 32);
		}
		if (c === 'p' || c === 'P') {
			throw new PatternProblem('uses a Unicode property escape, which is not supported here');
		}
		return c;
	}

	private charClass(): CharTest {
		const negated = this.peek() === '^';
		if (negated) this.pos++;
		const tests: CharTest[] = [];
		for (;;) {
			let c = this.source[this.pos++];
			if (c === undefined) throw new PatternProblem('has an unclosed "["');
			// "[]" matches nothing and "[^]" anything, as in JavaScript
			if (c === ']') break;
			if (c === '\\') {
				const e = this.source[this.pos++];
				if (e === undefined) throw new PatternProblem('has an unclosed "["');
				if (classEscapes[e]) {
					tests.push(classEscapes[e]);
					continue;
				}
				c = e === 'b' ? '\b' : this.escapedChar(e);
			}
			if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
				this.pos++;
				let end = this.source[this.pos++];
				if (end === '\\') {
					const e = this.source[this.pos++];
					if (classEscapes[e]) throw new PatternProblem('has a range ending in a class escape');
					end = e === 'b' ? '\b' : this.escapedChar(e);
				}
				const [low, high] = [c.codePointAt(0)!, end.codePointAt(0)!];
				if (low > high) throw new PatternProblem('has a range out of order in a [class]');
				tests.push((x) => {
					const code = x.codePointAt(0)!;
					return code >= low && code <= high;
				});
			} else {
				const only = c;
				tests.push((x) => x === only);
			}
		}
		const inClass = (x: string) => tests.some((t) => t(x));
		const folded = this.flags.i
			? (x: string) => inClass(x) || inClass(x.toLowerCase()) || inClass(x.toUpperCase())
			: inClass;
		return negated ? (x) => !folded(x) : folded;
	}

	private literal(c: string): Node {
		if (!this.flags.i) return this.char((x) => x === c);
		const lower = c.toLowerCase();
		return this.char((x) => x.toLowerCase() === lower);
	}

	private char(test: CharTest): Node {
		return { kind: 'char', test };
	}
}
