'use strict';
const {
	isoTime,
	reactionsOf,
	attachmentsOf,
	simplifyMessage,
	simplifyConversation,
	simplifyReply,
} = require('../../dist/nodes/shared/simplify/records');

const record = {
	id: 'msg_1',
	conversation_id: 'conv_1',
	contact: {
		id: 'ct_ann',
		username: 'ann',
		phone_number: '+15550000001',
		avatar_url: 'https://avatars.example.com/ct_ann.png',
		last_active_at: 1_700_000_000,
		created_at: 1_600_000_000,
	},
	message: 'Where is my order?',
	reactions: [{ like: ['bob', 'ct_me'] }, { like: ['bob'], '👀': ['ct_me'] }],
	attachments: [{ name: 'invoice.pdf', mime_type: 'application/pdf', size: 12 }, 'junk'],
	read_at: null,
	created_at: 1_700_000_000,
	updated_at: 1_700_000_060,
};

describe('Simplify', () => {
	test('a message: flat, ISO times, reactions counted and who, attachment names, no phone or avatar', () => {
		const simple = simplifyMessage(record, { unit: 'auto', own: ['ct_me'] });
		expect(simple).toEqual({
			id: 'msg_1',
			conversation_id: 'conv_1',
			from: 'ann',
			from_id: 'ct_ann',
			from_me: false,
			text: 'Where is my order?',
			sent_at: '2023-11-14T22:13:20.000Z',
			edited_at: '2023-11-14T22:14:20.000Z',
			read_at: null,
			reactions: { like: 2, '👀': 1 },
			reacted_by: { like: ['bob', 'ct_me'], '👀': ['ct_me'] },
			attachments: [{ name: 'invoice.pdf', type: 'application/pdf' }],
		});
		expect(JSON.stringify(simple)).not.toMatch(/\+1555|avatars/);
	});

	test('from_me: by the account, else by the other contact of a one-to-one conversation, else unknown', () => {
		const mine = { ...record, contact: { id: 'ct_me', username: 'me' } };
		expect(simplifyMessage(mine, { unit: 'auto', own: ['me'] }).from_me).toBe(true);
		const others = new Map([['conv_1', 'ct_ann']]);
		expect(simplifyMessage(record, { unit: 'auto', own: [], otherContacts: others }).from_me).toBe(
			false,
		);
		expect(simplifyMessage(mine, { unit: 'auto', own: [], otherContacts: others }).from_me).toBe(
			true,
		);
		expect(simplifyMessage(record, { unit: 'auto', own: [] }).from_me).toBeNull();
	});

	test('a bare contact id, numeric ids, milliseconds and an update answer’s reactions object', () => {
		const simple = simplifyMessage(
			{
				id: 7,
				conversation_id: 3,
				contact: 42,
				message: 5,
				reactions: { ok: ['x'] },
				created_at: 1_700_000_000_000,
			},
			{ unit: 'auto', own: [] },
		);
		expect(simple).toMatchObject({
			id: '7',
			conversation_id: '3',
			from: '42',
			text: '5',
			sent_at: '2023-11-14T22:13:20.000Z',
			edited_at: null,
			reactions: { ok: 1 },
			attachments: [],
		});
	});

	test('a conversation: with whom, states as booleans, last activity in ISO', () => {
		expect(
			simplifyConversation(
				{
					id: 'conv_1',
					contact_id: 'ct_ann',
					group_id: null,
					pinned_message_id: 'msg_1',
					is_pinned: true,
					is_muted: false,
					last_active_at: 1_700_000_000,
					last_opened_at: 1_700_000_000,
					created_at: 1_600_000_000,
					archived_at: 1_700_000_100,
				},
				{ unit: 'seconds' },
			),
		).toEqual({
			id: 'conv_1',
			contact_id: 'ct_ann',
			group_id: null,
			pinned: true,
			muted: false,
			archived: true,
			last_active_at: '2023-11-14T22:13:20.000Z',
		});
	});

	test('a reply wait: both messages simplified, the sent one is mine', () => {
		const out =
			/** @type {{ sent: Record<string, unknown>, reply: Record<string, unknown>, timedOut: boolean }} */ (
				simplifyReply(
					{ sent: { ...record, contact: { id: 'ct_me' } }, reply: record, timedOut: false },
					{ unit: 'auto', own: [] },
				)
			);
		expect(out.sent.from_me).toBe(true);
		expect(out.reply.from_me).toBe(false);
		expect(out.timedOut).toBe(false);
		expect(
			simplifyReply({ sent: record, reply: null, timedOut: true }, { unit: 'auto', own: [] }).reply,
		).toBeNull();
	});

	test('pieces: ISO text kept, junk is null; reactors once each; attachments of any spelling', () => {
		expect(isoTime('2025-01-02T03:04:05Z', 'auto')).toBe('2025-01-02T03:04:05.000Z');
		expect(isoTime('soon', 'auto')).toBeNull();
		expect(isoTime(undefined, 'auto')).toBeNull();
		expect(reactionsOf([{ a: ['x', 'x', 7] }])).toEqual({ a: ['x', '7'] });
		expect(reactionsOf('nope')).toEqual({});
		expect(attachmentsOf([{ filename: 'a.png', content_type: 'image/png' }, {}])).toEqual([
			{ name: 'a.png', type: 'image/png' },
			{ name: null, type: null },
		]);
	});
});
