'use strict';
const { encodeForm, encodeFormComponent } = require('../../dist/nodes/shared/transport/form');

describe('encodeForm: the exact bytes of a form body', () => {
	test('reactions as reactions[<name>][]=<reactor>, in order', () => {
		expect(encodeForm({ reactions: { like: ['ann', 'bob'], love: ['cy'] } })).toBe(
			'reactions[like][]=ann&reactions[like][]=bob&reactions[love][]=cy',
		);
	});

	test('names and reactors with & = [ ] spaces + and non-ASCII are percent-encoded; structure stays literal', () => {
		expect(encodeForm({ reactions: { 'a&b=c[d] e+': ['zoë & co=1', '👍'] } })).toBe(
			'reactions[a%26b%3Dc%5Bd%5D%20e%2B][]=zo%C3%AB%20%26%20co%3D1&reactions[a%26b%3Dc%5Bd%5D%20e%2B][]=%F0%9F%91%8D',
		);
	});

	test('booleans, numbers, null, undefined, empty collections', () => {
		expect(
			encodeForm({
				is_muted: true,
				is_pinned: false,
				archived_at: 1700000000,
				pinned_message_id: null,
				skip: undefined,
				reactions: {},
				attachments: [],
			}),
		).toBe(
			'is_muted=true&is_pinned=false&archived_at=1700000000&pinned_message_id=&reactions=&attachments=',
		);
	});

	test('arrays of objects use indices, nested objects brackets', () => {
		expect(encodeForm({ attachments: [{ name: 'a.pdf', meta: { size: 3 } }, { name: 'b' }] })).toBe(
			'attachments[0][name]=a.pdf&attachments[0][meta][size]=3&attachments[1][name]=b',
		);
	});

	test("characters encodeURIComponent leaves alone are encoded too: ! ' ( ) *", () => {
		expect(encodeFormComponent("hi!'()*")).toBe('hi%21%27%28%29%2A');
	});
});
