'use strict';
/**
 * Reply Must Match runs in time linear in the text: the user's pattern can never block n8n's main thread.
 * Its answers are JavaScript's on every pattern both can run (a differential property test).
 */
const path = require('node:path');
const fc = require('fast-check');

const { compileLinearPattern, MAX_PROGRAM } = require(
	path.join(
		__dirname,
		'..',
		'..',
		'dist',
		'nodes',
		'Messaging',
		'sendAndWaitForReply',
		'linearPattern.js',
	),
);

const compile = (source) => {
	const pattern = compileLinearPattern(source);
	if (pattern.problem) throw new Error(pattern.problem);
	return pattern;
};

test('patterns that make a backtracking engine take exponential time answer at once', () => {
	// JavaScript's engine took about 15 s on the first with a 29-character reply, and doubles per character.
	const reply = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!';
	for (const source of [
		'^(\\w+\\s?)+$',
		'^(a+)+$',
		'(a|a)*b',
		'^(a|aa)+$',
		'(x+x+)+y',
		'^(\\d*)*$',
	]) {
		expect([source, compile(source).test(reply)]).toEqual([source, false]);
	}
	expect(compile('^(\\w+\\s?)+$').test('yes please ship it')).toBe(true);
});

test('/…/flags: i, m, s, u; g and y change nothing (a test never depends on the one before)', () => {
	expect(compile('^yes').test('yes!')).toBe(true);
	const pattern = compile('/^YES$/gi');
	expect([pattern.test('yes'), pattern.test('yes')]).toEqual([true, true]);
	expect(compile('/^no$/m').test('well\nno\n')).toBe(true);
	expect(compile('/^no$/').test('well\nno\n')).toBe(false);
	expect(compile('/a.b/s').test('a\nb')).toBe(true);
	expect(compile('a.b').test('a\nb')).toBe(false);
	expect(compile('/^.$/u').test('👍')).toBe(true);
	expect(compile('\\bok\\b').test('ok.')).toBe(true);
	expect(compile('\\bok\\b').test('okay')).toBe(false);
});

test.each([
	['(yes', /^is not a valid regular expression: /],
	['[a-', /^is not a valid regular expression: /],
	['(yes)\\1', /^uses a backreference/],
	['(?=yes)', /^uses a lookahead or lookbehind/],
	['(?<!no)yes', /^uses a lookahead or lookbehind/],
	['\\p{L}', /^uses a Unicode property escape/],
	[`a{${MAX_PROGRAM + 1}}`, /^is too large/],
])('%s is refused with a reason', (source, problem) => {
	expect(compileLinearPattern(source).problem).toMatch(problem);
});

test('differential: the same answer as JavaScript’s RegExp on random patterns and texts', () => {
	const atom = fc.oneof(
		fc.constantFrom(
			'a',
			'b',
			'A',
			' ',
			'.',
			'\\w',
			'\\d',
			'\\s',
			'\\W',
			'[ab]',
			'[^a]',
			'[a-c]',
			'\\b',
			'^',
			'$',
			'\\.',
			'-',
		),
	);
	const pattern = fc.letrec((tie) => ({
		expr: fc.oneof(
			{ depthSize: 'small', withCrossShrink: true },
			atom,
			fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => a + b),
			fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => `(${a}|${b})`),
			fc
				.tuple(tie('expr'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '*?', '{0,}'))
				.map(([a, q]) => (/^[\^$]$|\\b$/.test(a) ? a : `(?:${a})${q}`)),
		),
	})).expr;
	const text = fc.stringMatching(/^[abcA .1\n-]{0,12}$/);
	fc.assert(
		fc.property(pattern, fc.constantFrom('', 'i', 'm', 's'), text, (body, flags, input) => {
			const ours = compileLinearPattern(`/${body}/${flags}`);
			expect(ours.problem).toBeUndefined();
			expect(ours.test(input)).toBe(new RegExp(body, flags).test(input));
		}),
		{ numRuns: 3000 },
	);
});
