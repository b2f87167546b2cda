'use strict';
/** Service → Check Compatibility through n8n-core against sandbox variants: each variant, its finding. */
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, wire, TOKEN } = require('../harness/sandbox');
const { TOOL_DESCRIPTIONS } = require('../../dist/nodes/Messaging/actions/resources');

let sandbox;
let credentials;
afterEach(() => sandbox?.stop());

/** A sandbox with ann and bob, two conversations and five messages (reactions on one), created a second apart. */
async function setup(options = {}) {
	({ sandbox, credentials } = await startSandbox({ seed: 'none', ...options }));
	const { store } = sandbox;
	const seconds = options.unit === 'ms' ? 1 : 1 / 1000;
	const at = (n) => Math.floor((Date.parse('2026-03-01T00:00:00Z') + n * 1000) * seconds);
	for (const id of ['ct_ann', 'ct_bob']) store.addContact({ id });
	store.createConversation({ contact_id: 'ct_ann', created_at: at(0) }); // conv_00000001
	store.createConversation({ contact_id: 'ct_bob', created_at: at(1) }); // conv_00000002
	for (let n = 1; n <= 5; n++) {
		const { id } = store.sendMessage('ct_ann', {
			conversation_id: 'conv_00000001',
			message: `m${n}`,
		});
		store.redate(id, at(10 + n));
	}
	store.updateMessage('msg_00000003', { reactions: { like: ['ann', 'bob'] } });
	sandbox.clearRequests();
}

const check = async (parameters = {}, extra = {}) => {
	const { items, error } = await runMessagingNode({
		parameters: { resource: 'service', operation: 'checkCompatibility', ...parameters },
		credentials,
		typeVersion: 2,
		...extra,
	});
	return { report: items[0]?.json, items, error };
};
const GETS = [
	'GET /v1/conversations?limit=100',
	'GET /v1/conversations?limit=1&starting_after=conv_00000002',
	'GET /v1/messages?limit=100',
	'GET /v1/messages?limit=1&starting_after=msg_00000005',
	'GET /v1/messages/n8n-compatibility-check-no-such-message',
];
const sent = () => wire(sandbox).map((r) => `${r.method} ${r.url}`);

describe('Service → Check Compatibility, read-only by default', () => {
	test('a service as the spec shows it: five GETs, nothing else, one report of fine findings', async () => {
		await setup();
		const { report, items, error } = await check();
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(sent()).toEqual(GETS);
		expect(wire(sandbox).every((r) => r.method === 'GET' && r.body === '')).toBe(true);
		expect(report.requests).toEqual(GETS.map((line, n) => `${line} → ${n === 4 ? 404 : 200}`));
		expect(report.summary).toBe('13 findings: 11 fine, 1 unknown, 1 skipped');
		expect(report.attention).toEqual([]);
		expect(report.baseUrl).toBe(sandbox.url);
		const results = (f) => [f.result, f.status];
		expect(results(report.timestampUnit)).toEqual(['seconds', 'fine']);
		expect(report.timestampUnit.evidence).toMatch(
			/^created_at 1772323201 on conv_00000002; \d+ timestamps, all in seconds$/,
		);
		expect(results(report.messages.order)).toEqual(['newest_first', 'fine']);
		expect(report.messages.order.evidence).toBe(
			'4 of 4 neighbouring messages with different created_at go down (GET /v1/messages?limit=100)',
		);
		expect(results(report.messages.cursor)).toEqual(['honoured', 'fine']);
		expect(report.messages.cursor.evidence).toBe(
			'GET /v1/messages?limit=1&starting_after=msg_00000005 listed msg_00000004, the next message of the first page',
		);
		expect(results(report.messages.pageSize)).toEqual(['not reached (5 messages)', 'fine']);
		expect(results(report.conversations.cursor)).toEqual(['honoured', 'fine']);
		expect(results(report.ids)).toEqual(['text', 'fine']);
		expect(results(report.reactions)).toEqual(['array of objects', 'fine']);
		expect(report.reactions.evidence).toBe(
			'message msg_00000003: reactions [{"like":["ann","bob"]}]',
		);
		expect(results(report.attachmentUrls)).toEqual(['none seen', 'unknown']);
		expect(results(report.rateLimitHeaders)).toEqual(['none', 'fine']);
		expect(results(report.errorBody)).toEqual(['404, JSON, reason in error.message', 'fine']);
		expect(report.errorBody.nodeWill).toBe(
			'Errors show the service’s reason, here: "Not found: No such message: n8n-compatibility-check-no-such-message".',
		);
		expect(results(report.writeProbe)).toEqual(['off', 'skipped']);
		for (const finding of [report.timestampUnit, report.messages.cursor, report.errorBody])
			expect(Object.keys(finding)).toEqual(['result', 'status', 'evidence', 'nodeWill']);
	});

	test('milliseconds, and a credential whose Timestamp Unit contradicts the service', async () => {
		await setup({ unit: 'ms' });
		let { report } = await check();
		expect([report.timestampUnit.result, report.timestampUnit.status]).toEqual([
			'milliseconds',
			'adapted',
		]);
		await sandbox.stop();
		await setup({ unit: 'ms', credentials: { timestampUnit: 'seconds' } });
		({ report } = await check());
		expect(report.timestampUnit.status).toBe('attention');
		expect(report.timestampUnit.nodeWill).toMatch(
			/^The credential’s Timestamp Unit says seconds: .*Set it to Auto or milliseconds\.$/,
		);
		expect(report.attention).toEqual(['timestampUnit']);
	});

	test('timestamps as numeric text are named in the evidence', async () => {
		await setup({ quirks: { timestampsAsStrings: true } });
		const { report } = await check();
		expect(report.timestampUnit.result).toBe('seconds');
		expect(report.timestampUnit.evidence).toMatch(
			/, \d+ of them as numeric text \(read like numbers\)$/,
		);
	});

	test('oldest first: the message list is adapted to, the conversation list just output so', async () => {
		await setup({ order: 'oldest_first' });
		const { report } = await check();
		expect([report.messages.order.result, report.messages.order.status]).toEqual([
			'oldest_first',
			'adapted',
		]);
		expect(report.messages.order.nodeWill).toMatch(/Get Context reads a conversation to its end/);
		expect([report.conversations.order.result, report.conversations.order.status]).toEqual([
			'oldest_first',
			'fine',
		]);
		expect(report.messages.cursor.result).toBe('honoured');
	});

	test('an ignored cursor: both lists say so, to look at', async () => {
		await setup({ ignoreCursor: true });
		const { report } = await check();
		expect([report.messages.cursor.result, report.conversations.cursor.result]).toEqual([
			'ignored',
			'ignored',
		]);
		expect(report.messages.cursor.evidence).toBe(
			'GET /v1/messages?limit=1&starting_after=msg_00000005 listed msg_00000005 again, the message it asks to start after',
		);
		expect(report.attention).toEqual(['messages.cursor', 'conversations.cursor']);
		expect(report.summary).toMatch(/\. To look at: messages\.cursor, conversations\.cursor$/);
	});

	test('a page cap: capped pages, and pages without has_more', async () => {
		await setup({ maxPageSize: 3 });
		let { report } = await check();
		expect([report.messages.pageSize.result, report.messages.pageSize.status]).toEqual([
			'capped at 3',
			'adapted',
		]);
		expect(report.messages.pageSize.nodeWill).toMatch(/about 34 times the requests/);
		expect(report.conversations.pageSize.result).toBe('not reached (2 conversations)');
		sandbox.set({ quirks: { listShape: 'no-has-more' } });
		({ report } = await check());
		expect(report.messages.pageSize.result).toBe('3, no has_more');
	});

	test('a page size refused with a reason naming limit: asked again as the paginator does', async () => {
		await setup({ maxPageSize: 50, quirks: { refuseLargePages: true } });
		const { report } = await check();
		expect(sent().slice(0, 3)).toEqual([
			'GET /v1/conversations?limit=100',
			'GET /v1/conversations?limit=50',
			'GET /v1/conversations?limit=1&starting_after=conv_00000002',
		]);
		expect(report.requests[0]).toBe('GET /v1/conversations?limit=100 → 400');
		expect(report.messages.pageSize).toMatchObject({
			result: '50 (100 refused)',
			status: 'adapted',
			evidence: 'limit=100 refused (limit must be between 1 and 50); limit=50 answered 5 messages',
		});
	});

	test('reactions as one object', async () => {
		await setup({ quirks: { reactionsAsObject: true } });
		const { report } = await check();
		expect(report.reactions).toMatchObject({
			result: 'one object',
			status: 'adapted',
			evidence: 'message msg_00000003: reactions {"like":["ann","bob"]}',
		});
	});

	test('numeric ids: reported, and the cursor still honoured', async () => {
		await setup({ quirks: { numericIds: true } });
		const { report } = await check();
		expect([report.ids.result, report.ids.status]).toEqual(['numbers', 'adapted']);
		expect(report.messages.cursor.result).toBe('honoured');
		expect(sent()).toContain('GET /v1/messages?limit=1&starting_after=5');
	});

	test('rate-limit headers, read by the pacing’s own parser; the IETF form too', async () => {
		await setup({
			rateLimit: { shape: 'fixed-window', limit: 100, windowMs: 60_000, headers: 'x-ratelimit' },
		});
		let { report } = await check();
		expect(report.rateLimitHeaders.result).toBe(
			'x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset',
		);
		expect(report.rateLimitHeaders.evidence).toMatch(
			/^GET \/v1\/messages\/n8n-compatibility-check-no-such-message answered x-ratelimit-limit: 100; x-ratelimit-remaining: 95; x-ratelimit-reset: \d+, read as a limit of 100, 95 left, reset in \d+ s$/,
		);
		expect(report.rateLimitHeaders.nodeWill).toMatch(/^Paces the run’s requests/);
		sandbox.set({
			rateLimit: { shape: 'fixed-window', limit: 100, windowMs: 60_000, headers: 'ietf' },
		});
		({ report } = await check());
		expect(report.rateLimitHeaders.result).toMatch(/^ratelimit/);
		expect(report.rateLimitHeaders.evidence).toMatch(/as a limit of 100 per 60 s, \d+ left/);
	});

	test.each([
		[
			{ status: 404, html: '<html><body><h1>404 Not Found</h1></body></html>' },
			'404, an HTML page',
			'fine',
		],
		[{ status: 404, body: { message: 'nope' } }, '404, JSON, reason in message', 'fine'],
		[{ status: 404, body: '' }, '404, an empty body, no reason read', 'adapted'],
		[
			{ status: 400, body: { errors: [{ detail: 'id is not a number' }] } },
			'400, JSON, reason in errors[0].detail',
			'adapted',
		],
	])('the error body of a missing message: %j', async (fault, result, status) => {
		await setup();
		sandbox.failNext({ match: { path: '/v1/messages/*' }, ...fault });
		const { report } = await check();
		expect([report.errorBody.result, report.errorBody.status]).toEqual([result, status]);
		if (fault.status === 400)
			expect(report.errorBody.nodeWill).toMatch(/Only a 404 tells the trigger/);
	});

	/** @type {Array<[{ attachmentsOrigin?: string, attachmentFields?: object, inlineAttachments?: boolean }, string, string]>} */
	const attachmentCases = [
		[{}, 'url, on the Base URL’s origin', 'fine'],
		[{ attachmentsOrigin: 'other' }, 'url, on another origin', 'attention'],
		[{ attachmentFields: { url: 'file_link' } }, 'URL in file_link', 'attention'],
		[{ inlineAttachments: true }, 'inline base64 in data', 'adapted'],
	];
	test.each(attachmentCases)('attachment URLs: %j', async (quirks, result, status) => {
		await setup({ quirks });
		// Through the API, so the sandbox stores the file and writes the attachment its way.
		const answer = await fetch(`${sandbox.url}/v1/messages`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${TOKEN}`,
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: 'conversation_id=conv_00000001&message=file&attachments[0][name]=a.txt&attachments[0][data]=aGk=',
		});
		expect(answer.status).toBe(200);
		sandbox.clearRequests();
		const { report } = await check();
		expect([report.attachmentUrls.result, report.attachmentUrls.status]).toEqual([result, status]);
		expect(report.attachmentUrls.evidence).toMatch(
			/^1 attachment listed; msg_00000006 attachments\[0\]/,
		);
		if (quirks.attachmentsOrigin)
			expect(report.attachmentUrls.nodeWill).toMatch(
				/unless Allow Private Addresses is on: its host is a loopback address/,
			);
		if (quirks.attachmentFields)
			expect(report.attachmentUrls.nodeWill).toMatch(
				/set Options → Attachment URL Field to file_link\.$/,
			);
	});

	test('as an AI agent’s tool: GETs only, a report of the size its description states', async () => {
		await setup({ ignoreCursor: true });
		const { report } = await check({}, { type: 'n8n-nodes-messaging.messagingTool' });
		expect(sent()).toEqual(GETS);
		const stated = /About ([\d,]+) characters\./.exec(TOOL_DESCRIPTIONS.service.checkCompatibility);
		const size = JSON.stringify(report).length;
		expect(Math.abs(size / Number(stated[1].replace(',', '')) - 1)).toBeLessThan(0.25);
	});
});
