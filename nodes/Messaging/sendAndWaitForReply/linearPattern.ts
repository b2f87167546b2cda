/**
 * Pure: a regular expression a user typed, run in time linear in the text (a Thompson NFA stepped over
 * the text, as RE2 does), so no pattern can block n8n's main thread: JavaScript's own engine backtracks,
 * and `^(\w+\s?)+$` against a 29-character reply took it 15 s. JavaScript syntax; what needs backtracking
 * (backreferences, lookahead, lookbehind) is refused with a reason.
 */

import {
	LINE_END,
	Parser,
	PatternProblem,
	WORD,
	type Assertion,
	type CharTest,
	type Node,
} from './patternParser';

const isWord = (c: string | undefined) => c !== undefined && WORD.test(c);

/** What the reply watcher asks of a pattern. */
export interface TextPattern {
	test(text: string): boolean;
}

type Instruction =
	| { op: 'char'; test: CharTest }
	| { op: 'assert'; what: Assertion }
	| { op: 'split'; a: number; b: number }
	| { op: 'jmp'; to: number }
	| { op: 'match' };

/** Most instructions a compiled pattern may have (`x{1000}` counts 1000): bounds each step over the text. */
export const MAX_PROGRAM = 5000;

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
