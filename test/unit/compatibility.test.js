'use strict';
/** Check Compatibility's pure findings: observations in, findings out (the cases no sandbox variant shows). */
const { listFindings } = require('../../dist/nodes/Messaging/actions/service/listFindings');
const {
	timestampUnitFinding,
	attachmentUrlsFinding,
	reactionsFinding,
} = require('../../dist/nodes/Messaging/actions/service/recordFindings');
const {
	rateLimitFinding,
	errorBodyFinding,
	writeProbeFinding,
	bodyShape,
} = require('../../dist/nodes/Messaging/actions/service/serviceFindings');
const { compatibilityReport } = require('../../dist/nodes/Messaging/actions/service/report');

const NOW = Date.parse('2026-03-01T00:00:00Z');
const page = (records, more = {}) => ({
	limit: 100,
	records,
	hasMore: false,
	request: 'GET /v1/messages?limit=100',
	...more,
});
const msgs = (...ids) => ids.map((id, n) => ({ id, created_at: 1_700_000_000 - n }));

describe('timestamp unit', () => {
	test('mixed units, none at all, and a fixed unit with nothing to check it against', () => {
		const mixed = timestampUnitFinding(
			[
				{ id: 'a', created_at: 1_700_000_000 },
				{ id: 'b', created_at: 1_700_000_000_000 },
			],
			'auto',
		);
		expect([mixed.result, mixed.status]).toEqual(['mixed', 'attention']);
		expect(mixed.evidence).toBe(
			'created_at 1700000000 on a; 2 timestamps, in seconds and in milliseconds',
		);
		const none = timestampUnitFinding([{ id: 'a', created_at: null }], 'auto');
		expect([none.result, none.status]).toEqual(['unknown', 'attention']);
		expect(none.nodeWill).toMatch(/set the unit on the credential/);
		expect(timestampUnitFinding([], 'milliseconds')).toMatchObject({
			result: 'unknown',
			status: 'unknown',
		});
		expect(timestampUnitFinding(msgs('a'), 'seconds').nodeWill).toBe(
			'Uses the credential’s Timestamp Unit (seconds), which matches.',
		);
	});
});

describe('lists', () => {
	test('a cursor page that is neither the next record nor the same one', () => {
		const { cursor } = listFindings('messages', {
			refused: [],
			page: page(msgs('m3', 'm2', 'm1')),
			cursor: { after: 'm3', request: 'GET c', records: msgs('m1') },
		});
		expect(cursor).toMatchObject({
			result: 'unexpected',
			status: 'attention',
			evidence: 'GET c listed m1, not m2 (what follows on the first page)',
		});
	});

	test('page sizes: more than asked, empty pages saying has_more, a refusal naming no size', () => {
		const over = listFindings('messages', {
			refused: [],
			page: page(msgs(...'abc'), { limit: 2 }),
		});
		expect(over.pageSize.result).toBe('ignores limit (3 for 2)');
		const empty = listFindings('messages', { refused: [], page: page([], { hasMore: true }) });
		expect([empty.pageSize.result, empty.pageSize.status]).toEqual([
			'empty page with has_more',
			'attention',
		]);
		expect(empty.order.result).toBe('unknown');
		expect(empty.cursor.evidence).toBe('No message listed to page after');
		const refused = listFindings('conversations', {
			refused: [{ limit: 100, reason: 'limit too large' }],
			failure: {
				message: 'The Messaging service rejected the request (400): limit too large',
				status: 400,
			},
		});
		expect(refused.pageSize).toMatchObject({ result: 'refused', status: 'attention' });
		expect(refused.pageSize.evidence).toBe(
			'limit=100 refused (limit too large); then The Messaging service rejected the request (400): limit too large',
		);
		expect(refused.order.evidence).toMatch(
			/^limit=100 refused \(limit too large\); GET \/v1\/conversations failed: /,
		);
	});

	test('order: the way most neighbouring pairs go, one late record does not turn it', () => {
		const times = [50, 40, 60, 30, 20, 10];
		const { order } = listFindings('messages', {
			refused: [],
			page: page(times.map((t, n) => ({ id: `m${n}`, created_at: t }))),
		});
		expect(order.result).toBe('newest_first');
		expect(order.evidence).toMatch(/^4 of 5 neighbouring messages/);
	});
});

describe('records', () => {
	test('reactions in no readable form; attachments with a relative URL, or none usable', () => {
		expect(reactionsFinding([{ id: 'm', reactions: 'like' }])).toMatchObject({
			result: 'unreadable',
			status: 'attention',
		});
		expect(reactionsFinding([]).evidence).toBe('No message listed');
		const base = 'https://chat.example.com/api';
		const relative = attachmentUrlsFinding([{ id: 'm', attachments: [{ url: '/files/1' }] }], base);
		expect(relative.result).toBe('url, on the Base URL’s origin');
		expect(relative.evidence).toBe(
			'1 attachment listed; m attachments[0].url = https://chat.example.com/files/1',
		);
		const bare = attachmentUrlsFinding([{ id: 'm', attachments: [{ name: 'a' }] }], base);
		expect([bare.result, bare.status]).toEqual(['no URL', 'attention']);
		const ftp = attachmentUrlsFinding([{ id: 'm', attachments: [{ url: 'ftp://x/y' }] }], base);
		expect(ftp.nodeWill).toBe(
			'Download Attachments refuses it: the URL is a ftp: URL (only http and https are fetched).',
		);
		const signed = attachmentUrlsFinding(
			[{ id: 'm', attachments: [{ href: 'https://cdn.example.net/f?sig=secret' }] }],
			base,
		);
		expect(signed.result).toBe('href, on another origin');
		expect(signed.evidence).not.toContain('secret');
	});
});

describe('answers', () => {
	const answer = (headers) => ({ request: 'GET x', status: 200, headers, body: '' });

	test('rate-limit headers the parser cannot read, and the last one it can', () => {
		const partial = rateLimitFinding([answer({ 'x-ratelimit-limit': '60' })], NOW);
		expect([partial.result, partial.status]).toEqual(['x-ratelimit-limit', 'adapted']);
		const full = rateLimitFinding(
			[
				answer({ 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '30' }),
				answer({ 'retry-after': '1' }),
			],
			NOW,
		);
		expect(full.result).toBe('x-ratelimit-remaining, x-ratelimit-reset, retry-after');
		expect(full.evidence).toBe(
			'GET x answered x-ratelimit-remaining: 9; x-ratelimit-reset: 30, read as 9 left, reset in 30 s',
		);
	});

	test('body shapes', () => {
		expect(bodyShape('')).toBe('an empty body');
		expect(bodyShape('Not here')).toBe('plain text');
		expect(bodyShape('<!DOCTYPE html><p>no</p>')).toBe('an HTML page');
		expect(bodyShape('{"error":{"message":"gone"}}', 'gone')).toBe('JSON, reason in error.message');
		expect(bodyShape('{"detail":[{"msg":"a"},{"msg":"b"}]}', 'a; b')).toBe('JSON {detail}');
		expect(bodyShape('[1]')).toBe('JSON an array');
	});

	test('a record for an ID that cannot exist', () => {
		expect(
			errorBodyFinding({ id: 'x', request: 'GET /v1/messages/x', record: { id: 'x' } }),
		).toMatchObject({ result: '2xx for a missing ID', status: 'attention' });
	});

	test('the write probe when the read after the delete fails', () => {
		const finding = writeProbeFinding({
			contactId: 'ct_a',
			created: { id: 'c1' },
			deleted: { status: 200, body: '' },
			afterDelete: { message: 'The Messaging service failed (502)', status: 502 },
		});
		expect([finding.result, finding.status]).toEqual(['create and delete answer 2xx', 'unknown']);
	});
});

test('the report: every finding, the summary, the findings to look at', () => {
	const list = {
		refused: [],
		page: page(msgs('m2', 'm1')),
		cursor: { after: 'm2', request: 'GET c', records: msgs('m2') },
	};
	const report = compatibilityReport(
		{
			unitSetting: 'auto',
			baseUrl: 'https://chat.example.com',
			messages: list,
			conversations: { refused: [], page: page([]) },
			missing: {
				id: 'x',
				request: 'GET /v1/messages/x',
				failure: { message: 'Not found', status: 404, serviceText: 'gone' },
				body: '{"message":"gone"}',
			},
			answers: [],
			requests: ['GET a → 200'],
		},
		NOW,
	);
	expect(Object.keys(report)).toEqual([
		'checkedAt',
		'baseUrl',
		'summary',
		'attention',
		'timestampUnit',
		'messages',
		'conversations',
		'ids',
		'reactions',
		'attachmentUrls',
		'rateLimitHeaders',
		'errorBody',
		'writeProbe',
		'requests',
	]);
	expect(report.checkedAt).toBe('2026-03-01T00:00:00.000Z');
	expect(report.attention).toEqual(['messages.cursor']);
	expect(report.summary).toBe(
		'13 findings: 7 fine, 1 to look at, 4 unknown, 1 skipped. To look at: messages.cursor',
	);
});
