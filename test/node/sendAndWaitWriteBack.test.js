'use strict';
/**
 * Update Request Message on Send and Wait for Response, through n8n-core (the request parked, the link
 * pressed through the WebhookContext): the PUT on the wire for each answer, `requestUpdate` on the output,
 * a refused update that leaves the answer as it was, and nothing sent with the option off. Also Text Format
 * on the request's text, and the pure outcome line.
 */
const path = require('node:path');
const { callMessagingWebhook } = require('../harness/n8n');
const { wire } = require('../harness/sandbox');
const {
	INBOX,
	NODE_ID,
	startInbox,
	parameters,
	inboxHelpers,
	linkIn,
	pathAndQuery,
} = require('../harness/sendAndWait');

const { outcomeLine, clockTime } = require(
	path.join(__dirname, '../../dist/nodes/Messaging/helpers/requestUpdate.js'),
);
const { withoutLinks } = require(
	path.join(__dirname, '../../dist/nodes/Messaging/sendAndWait/requestLookup.js'),
);

let sandbox;
let credentials;
let store;
beforeEach(async () => ({ sandbox, credentials, store } = await startInbox()));
afterEach(() => sandbox.stop());
const { park, requestText } = inboxHelpers(() => ({ credentials, store }));

const QUESTION = 'Archive the conversation with Ann?';
/** n8n's default time zone (America/New_York), as the harness's workflow has no setting of its own. */
const CLOCK = /\d\d:\d\d E[SD]T$/;

/** Parks the request with `extra`, presses `label`'s link (POST with `body`): the answer and the PUTs sent. */
async function answer(extra, label, body = {}) {
	await park(extra);
	const text = requestText()[0];
	const sentMessageId = store.listMessages({ conversation_id: INBOX })[0].id;
	sandbox.clearRequests();
	const answered = await callMessagingWebhook({
		parameters: parameters(extra),
		credentials,
		url: pathAndQuery(linkIn(text, label)),
		nodeId: NODE_ID,
		method: 'POST',
		body,
	});
	const puts = wire(sandbox).filter((r) => r.method === 'PUT');
	return { answered, json: answered.result.workflowData[0][0].json, puts, sentMessageId };
}

const double = { approvalOptions: { values: { approvalType: 'double' } } };
const on = (more = {}) => ({ options: { updateRequestMessage: true, ...more } });
const putText = (put) => new URLSearchParams(put.body).get('message');

describe('Send and Wait for Response: Update Request Message', () => {
	test.each([
		['Approve', 'Approved'],
		['Decline', 'Declined'],
	])(
		'%s: the request is edited to its text (links gone) and "%s · HH:MM"',
		async (label, outcome) => {
			const { answered, json, puts, sentMessageId } = await answer({ ...double, ...on() }, label);
			expect(answered.status).toBe(200);
			expect(puts).toHaveLength(1);
			expect(puts[0].url).toBe(`/v1/messages/${sentMessageId}`);
			const edited = putText(puts[0]);
			expect(puts[0].body).toBe(`message=${encodeURIComponent(edited)}`);
			expect(edited).toMatch(new RegExp(`^${QUESTION.replace('?', '\\?')}\\n\\n${outcome} · `));
			expect(edited).toMatch(CLOCK);
			expect(edited).not.toContain('http');
			expect(store.messages.get(sentMessageId).message).toBe(edited);
			expect(json).toEqual({
				data: { approved: outcome === 'Approved', respondedAt: expect.any(String) },
				sentMessageId,
				requestUpdate: { updated: true },
			});
		},
	);

	test('Free Text: "Answered", with a template of the user’s own; the by-part is left out (no person known)', async () => {
		const { json, puts } = await answer(
			{
				responseType: 'freeText',
				...on({ outcomeLine: '— {outcome}[ by {by}] at { time } —' }),
			},
			'Respond',
			{ response: 'Keep it 30 days' },
		);
		expect(putText(puts[0])).toMatch(
			new RegExp(`^${QUESTION.replace('?', '\\?')}\\n\\n— Answered at \\d\\d:\\d\\d E[SD]T —$`),
		);
		expect(json.data.text).toBe('Keep it 30 days');
		expect(json.requestUpdate).toEqual({ updated: true });
	});

	test('an update the service refuses: the answer stands, the failure is on the output', async () => {
		sandbox.failNext({ match: { method: 'PUT', path: '/v1/messages/*' }, status: 403 });
		const { answered, json, puts, sentMessageId } = await answer({ ...double, ...on() }, 'Approve');
		expect(answered.status).toBe(200);
		expect(answered.body).toContain('Got it, thanks');
		expect(puts).toHaveLength(1);
		expect(json).toEqual({
			data: { approved: true, respondedAt: expect.any(String) },
			sentMessageId,
			requestUpdate: { updated: false, error: expect.any(String), httpCode: '403' },
		});
		expect(json.requestUpdate.error).not.toContain(credentials.accessToken);
		expect(store.messages.get(sentMessageId).message).toBe(requestText()[0]);
	});

	test('a request message that cannot be found: nothing is sent, the output says so', async () => {
		await park(on());
		const text = requestText()[0];
		store.deleteMessage(store.listMessages({ conversation_id: INBOX })[0].id);
		sandbox.clearRequests();
		const answered = await callMessagingWebhook({
			parameters: parameters(on()),
			credentials,
			url: pathAndQuery(linkIn(text, 'Approve')),
			nodeId: NODE_ID,
			method: 'POST',
			body: {},
		});
		expect(wire(sandbox).filter((r) => r.method === 'PUT')).toEqual([]);
		expect(answered.result.workflowData[0][0].json).toMatchObject({
			data: { approved: true },
			sentMessageId: null,
			requestUpdate: { updated: false, error: 'The request message was not found' },
		});
	});

	test('the option off (the default): no PUT and no requestUpdate field', async () => {
		const { json, puts } = await answer(double, 'Approve');
		expect(puts).toEqual([]);
		expect(Object.keys(json)).toEqual(['data', 'sentMessageId']);
	});

	test('Text Format "Plain Text From Markdown": the request is sent as plain text, the links unchanged', async () => {
		await park({
			message: '## Archive?\n**Ann** left; see [the ticket](https://t.example/1)',
			options: { textFormat: 'plainFromMarkdown' },
		});
		expect(requestText()[0]).toMatch(
			/^Archive\?\nAnn left; see the ticket \(https:\/\/t\.example\/1\)\n\nApprove: http\S+$/,
		);
	});
});

describe('the outcome line (pure)', () => {
	const at = new Date('2026-01-05T14:02:00Z');
	test.each([
		['UTC', '14:02 UTC'],
		['Europe/Berlin', '15:02 GMT+1'],
		['America/New_York', '09:02 EST'],
		['Not/AZone', '14:02 UTC'],
		['', '14:02 UTC'],
	])('time in %s is "%s"', (zone, text) => expect(clockTime(at, zone)).toBe(text));

	test.each([
		[{ outcome: 'Approved', by: ['ct_ann'] }, 'Approved by ct_ann · 14:02 UTC'],
		[{ outcome: 'Declined', by: ['ct_bob', 'ct_cy'] }, 'Declined by ct_bob, ct_cy · 14:02 UTC'],
		[{ outcome: 'Approved', by: [] }, 'Approved · 14:02 UTC'],
		[{ outcome: 'No answer (timed out)', by: [] }, 'No answer (timed out) · 14:02 UTC'],
	])('default template: %j → %s', (outcome, line) =>
		expect(outcomeLine('{outcome}[ by {by}] · {time}', { ...outcome, at }, 'UTC')).toBe(line),
	);

	test('brackets without a placeholder stay; unknown placeholders stay as written', () => {
		expect(
			outcomeLine('[done] {outcome} {who}[ ({by})]', { outcome: 'Answered', by: [], at }, 'UTC'),
		).toBe('[done] Answered {who}');
	});

	test('the request without its link lines, wherever the labels say', () => {
		const marker = '/exec-1/node-1?';
		expect(
			withoutLinks(
				`Go?\nhttp://x/exec-1/node-2?a\n\nYes: http://h/w${marker}a=1\nNo: http://h/w${marker}a=0`,
				marker,
			),
		).toBe('Go?\nhttp://x/exec-1/node-2?a');
	});
});
