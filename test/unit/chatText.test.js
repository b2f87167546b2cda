'use strict';
/** Text for chat, pure: Markdown as plain text, and long texts split at readable boundaries. */
const { plainTextFromMarkdown, splitText } = require('../../dist/nodes/shared/chatText');

describe('plainTextFromMarkdown', () => {
	test.each([
		['# Title\n\nBody', 'Title\n\nBody'],
		['## Steps ##', 'Steps'],
		[
			'This is **bold**, __strong__, *em*, _em_ and ~~gone~~.',
			'This is bold, strong, em, em and gone.',
		],
		[
			'See [the docs](https://x.example/a) or <https://y.example>.',
			'See the docs (https://x.example/a) or https://y.example.',
		],
		['[https://x.example](https://x.example)', 'https://x.example'],
		['![chart](https://x.example/c.png)', 'chart (https://x.example/c.png)'],
		['- one\n* two\n+ three\n  - nested', '• one\n• two\n• three\n  • nested'],
		['- [ ] todo\n- [x] done', '• ☐ todo\n• ☑ done'],
		['1. first\n2. second', '1. first\n2. second'],
		['> quoted **text**', '> quoted text'],
		['Use `a_b*c*` here', 'Use a_b*c* here'],
		['```js\nconst a = **b**;\n```\nafter', 'const a = **b**;\nafter'],
		['snake_case_name and 2*3*4 stay', 'snake_case_name and 2*3*4 stay'],
		['Escaped \\*stars\\* and \\_under\\_', 'Escaped *stars* and _under_'],
		['a\n\n\n\nb\n---\nc', 'a\n\nb\n\nc'],
		['plain text stays', 'plain text stays'],
	])('%j', (markdown, plain) => {
		expect(plainTextFromMarkdown(markdown)).toBe(plain);
	});
});

describe('splitText', () => {
	const whole = (parts) => parts.join('').replace(/\s+/g, '');

	test('a text within the limit is one part, unchanged', () => {
		expect(splitText('short', 5)).toEqual(['short']);
		expect(splitText('', 5)).toEqual(['']);
	});

	test('paragraph first, then sentence, then word, each part within the limit', () => {
		const text = 'First paragraph here.\n\nSecond one is longer. It has two sentences.';
		expect(splitText(text, 30)).toEqual([
			'First paragraph here.',
			'Second one is longer.',
			'It has two sentences.',
		]);
		expect(splitText('one two three four five six', 10)).toEqual([
			'one two',
			'three four',
			'five six',
		]);
	});

	test('a word longer than the limit is cut mid-word; no character is lost', () => {
		const parts = splitText('abcdefghijklmnop', 5);
		expect(parts).toEqual(['abcde', 'fghij', 'klmno', 'p']);
		const text = 'Lorem ipsum dolor sit amet. '.repeat(40) + 'x'.repeat(130);
		for (const max of [1, 7, 50, 101]) {
			const split = splitText(text, max);
			expect(split.every((p) => p.length <= max)).toBe(true);
			expect(whole(split)).toBe(text.replace(/\s+/g, ''));
		}
	});

	test('never inside a surrogate pair', () => {
		const emoji = '😀'.repeat(10); // 20 UTF-16 units
		const parts = splitText(emoji, 5);
		expect(
			parts.every(
				(p) => p.length <= 5 && !/[\ud800-\udbff]$/.test(p) && !/^[\udc00-\udfff]/.test(p),
			),
		).toBe(true);
		expect(parts.join('')).toBe(emoji);
	});

	test('other languages’ sentence marks are boundaries', () => {
		expect(splitText('これはテストです。次の文です。', 10)).toEqual([
			'これはテストです。',
			'次の文です。',
		]);
	});

	test.each([0, -1, 1.5, NaN])('a limit of %p is refused', (max) => {
		expect(() => splitText('text', max)).toThrow('must be a whole number of at least 1');
	});
});
