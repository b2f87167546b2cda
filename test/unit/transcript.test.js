'use strict';
const { buildTranscript, transcriptLine } = require('../../dist/nodes/shared/transcript');

const message = (n, extra = {}) => ({
	id: `m${n}`,
	conversation_id: 'c1',
	from: n % 2 ? 'ann' : 'me',
	from_id: n % 2 ? 'ct_ann' : 'ct_me',
	from_me: n % 2 === 0,
	text: `message ${n}`,
	sent_at: new Date(Date.UTC(2025, 0, 1, 10, n)).toISOString(),
	edited_at: null,
	read_at: null,
	reactions: {},
	reacted_by: {},
	attachments: [],
	...extra,
});

describe('transcript', () => {
	test('a line: time, speaker (the account as me), text, edits, reactions with who, attachments', () => {
		expect(
			transcriptLine(
				message(1, {
					text: 'two\nlines',
					edited_at: '2025-01-01T11:00:00.000Z',
					reacted_by: { like: ['bob', 'me'] },
					attachments: [
						{ name: 'a.pdf', type: 'application/pdf' },
						{ name: null, type: null },
					],
				}),
			),
		).toBe(
			'[2025-01-01T10:01:00.000Z] ann: two\n  lines (edited) [reactions: like ×2 (bob, me)] [attachments: a.pdf (application/pdf), unnamed]',
		);
		expect(transcriptLine(message(2))).toBe('[2025-01-01T10:02:00.000Z] me: message 2');
	});

	test('oldest first whatever the input order; within budget everything, header first', () => {
		const { transcript, included, omitted } = buildTranscript(
			[message(3), message(1), message(2)],
			{
				header: 'Conversation c1.',
				maxCharacters: 10_000,
			},
		);
		expect(transcript.split('\n')).toEqual([
			'Conversation c1.',
			'[2025-01-01T10:01:00.000Z] ann: message 1',
			'[2025-01-01T10:02:00.000Z] me: message 2',
			'[2025-01-01T10:03:00.000Z] ann: message 3',
		]);
		expect([included, omitted]).toEqual([3, 0]);
	});

	test('over budget: the newest kept whole, the older left out and counted; never above the budget', () => {
		const messages = Array.from({ length: 50 }, (_, i) => message(i + 1));
		for (const maxCharacters of [200, 500, 1_000, 2_000]) {
			const result = buildTranscript(messages, { header: 'Conversation c1.', maxCharacters });
			const lines = result.transcript.split('\n');
			expect(result.transcript.length).toBeLessThanOrEqual(maxCharacters);
			expect(lines[lines.length - 1]).toBe('[2025-01-01T10:50:00.000Z] me: message 50');
			expect(result.included + result.omitted).toBe(50);
			expect(lines[0]).toBe(
				`Conversation c1. ${result.omitted} older messages left out to stay within ${maxCharacters} characters.`,
			);
			expect(lines.slice(1).every((l) => /^\[.*\] (ann|me): message \d+$/.test(l))).toBe(true);
		}
	});

	test('a newest message longer than the budget is cut, and said so', () => {
		const result = buildTranscript([message(1), message(2, { text: 'x'.repeat(5_000) })], {
			header: 'C.',
			maxCharacters: 300,
		});
		expect(result.transcript.length).toBeLessThanOrEqual(300);
		expect(result).toMatchObject({ included: 1, omitted: 1, truncated: true });
		expect(result.transcript).toMatch(
			/The newest message was cut to fit\.\n\[2025-01-01T10:02:00.000Z\] me: x+…$/,
		);
	});
});
