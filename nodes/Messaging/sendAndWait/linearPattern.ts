/**
 * Pure: a regular expression a user typed, run in time linear in the text (a Thompson NFA stepped over
 * the text, as RE2 does), so no pattern can block n8n's main thread: JavaScript's own engine backtracks,
 * and `^(\w+\s?)+$` against a 29-character reply took it 15 s. JavaScript syntax; what needs backtracking
 * (backreferences, lookahead, lookbehind) is refused with a reason.
 */

/** What the reply watcher asks of a pattern. */
export interface TextPattern {
	test(text: string): boolean;
}

type CharTest = (c: string) => boolean;
type Assertion = 'start' | 'end' | 'word' | 'notWord';

type Node =
	| { kind: 'char'; test: CharTest }
	| { kind: 'assert'; what: Assertion }
	| { kind: 'seq'; items: Node[] }
	| { kind: 'alt'; options: Node[] }
	| { kind: 'repeat'; item: Node; min: number; max: number };

type Instruction =
	| { op: 'char'; test: CharTest }
	| { op: 'assert'; what: Assertion }
	| { op: 'split'; a: number; b: number }
	| { op: 'jmp'; to: number }
	| { op: 'match' };

/** Most instructions a compiled pattern may have (`x{1000}` counts 1000): bounds each step over the text. */
export const MAX_PROGRAM = 5000;

export class PatternProblem extends Error {}

const LINE_END = /[\n\r\u2028\u2029]/;
const WORD = /[A-Za-z0-9_]/;
const SPACE = /\s/;
const isWord = (c: string | undefined) => c !== undefined && WORD.test(c);

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

class Parser {
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

class Compiler {
	readonly program: Instruction[] = [];

	private emit(instruction: Instruction): number {
		if (this.program.length >= MAX_PROGRAM) {
			throw new PatternProblem(
				`is too large (more than ${MAX_PROGRAM} steps once its counted repeats are written out)`,
			);
		}
		this.program.push(instruction);
		return this.program.length - 1;
	}

	compile(node: Node): void {
		switch (node.kind) {
			case 'char':
				this.emit({ op: 'char', test: node.test });
				return;
			case 'assert':
				this.emit({ op: 'assert', what: node.what });
				return;
			case 'seq':
				node.items.forEach((item) => this.compile(item));
				return;
			case 'alt': {
				const jumps: number[] = [];
				node.options.forEach((option, index) => {
					if (index === node.options.length - 1) {
						this.compile(option);
						return;
					}
					const split = this.emit({ op: 'split', a: 0, b: 0 });
					this.compile(option);
					jumps.push(this.emit({ op: 'jmp', to: 0 }));
					this.program[split] = { op: 'split', a: split + 1, b: this.program.length };
				});
				for (const jump of jumps) this.program[jump] = { op: 'jmp', to: this.program.length };
				return;
			}
			case 'repeat': {
				for (let i = 0; i < node.min; i++) this.compile(node.item);
				if (node.max === Infinity) {
					const split = this.emit({ op: 'split', a: 0, b: 0 });
					this.compile(node.item);
					this.emit({ op: 'jmp', to: split });
					this.program[split] = { op: 'split', a: split + 1, b: this.program.length };
					return;
				}
				const splits: number[] = [];
				for (let i = node.min; i < node.max; i++) {
					splits.push(this.emit({ op: 'split', a: 0, b: 0 }));
					this.compile(node.item);
				}
				for (const split of splits)
					this.program[split] = { op: 'split', a: split + 1, b: this.program.length };
				return;
			}
		}
	}
}

class LinearPattern implements TextPattern {
	constructor(
		private readonly program: Instruction[],
		private readonly multiline: boolean,
		private readonly unicode: boolean,
	) {}

	/** Whether the pattern matches anywhere in `text`: every thread advanced one character at a time. */
	test(text: string): boolean {
		const chars = this.unicode ? Array.from(text) : text.split('');
		const size = this.program.length;
		let current: number[] = [];
		let next: number[] = [];
		const seen = new Int32Array(size).fill(-1);
		const stack: number[] = [];
		// Adds the thread at `pc` and every thread its jumps, splits and true assertions lead to.
		const add = (list: number[], pc: number, at: number, mark: number): boolean => {
			stack.push(pc);
			while (stack.length > 0) {
				const p = stack.pop()!;
				if (seen[p] === mark) continue;
				seen[p] = mark;
				const instruction = this.program[p];
				switch (instruction.op) {
					case 'match':
						stack.length = 0;
						return true;
					case 'jmp':
						stack.push(instruction.to);
						break;
					case 'split':
						stack.push(instruction.b, instruction.a);
						break;
					case 'assert':
						if (this.holds(instruction.what, chars, at)) stack.push(p + 1);
						break;
					case 'char':
						list.push(p);
						break;
				}
			}
			return false;
		};
		let mark = 0;
		for (let at = 0; at <= chars.length; at++) {
			if (add(current, 0, at, mark)) return true;
			if (at === chars.length) break;
			mark++;
			next.length = 0;
			for (const pc of current) {
				const instruction = this.program[pc] as { op: 'char'; test: CharTest };
				if (instruction.test(chars[at]) && add(next, pc + 1, at + 1, mark)) return true;
			}
			[current, next] = [next, current];
		}
		return false;
	}

	private holds(what: Assertion, chars: string[], at: number): boolean {
		const before = chars[at - 1];
		const after = chars[at];
		switch (what) {
			case 'start':
				return at === 0 || (this.multiline && LINE_END.test(before));
			case 'end':
				return at === chars.length || (this.multiline && LINE_END.test(after));
			case 'word':
				return isWord(before) !== isWord(after);
			case 'notWord':
				return isWord(before) === isWord(after);
		}
	}
}

/**
 * The user's pattern (`body`, or `/body/flags`) as a TextPattern, or a problem sentence. JavaScript checks
 * the syntax (building a RegExp runs nothing); this engine runs it.
 */
export function compileLinearPattern(source: string): TextPattern | { problem: string } {
	const literal = /^\/(.*)\/([a-z]*)$/s.exec(source);
	const body = literal ? literal[1] : source;
	const flags = literal ? literal[2] : '';
	try {
		new RegExp(body, flags);
	} catch (error) {
		return { problem: `is not a valid regular expression: ${(error as Error).message}` };
	}
	const unicode = /[uv]/.test(flags);
	try {
		const parser = new Parser(unicode ? Array.from(body) : body.split(''), {
			i: flags.includes('i'),
			s: flags.includes('s'),
			m: flags.includes('m'),
		});
		const compiler = new Compiler();
		compiler.compile(parser.parse());
		compiler.program.push({ op: 'match' });
		return new LinearPattern(compiler.program, flags.includes('m'), unicode);
	} catch (error) {
		const reason = (error as Error).message;
		return { problem: error instanceof PatternProblem ? reason : `could not be read: ${reason}` };
	}
}
