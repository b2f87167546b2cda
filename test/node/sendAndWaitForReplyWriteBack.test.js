'use strict';
/**
 * Update Request Message on Send and Wait for Reply, through n8n-core's WorkflowExecute against the
 * sandbox: the PUT on the wire after a reply, an approval by reaction, a decline by keyword and a time-out
 * (both On Timeout settings, Fail saying in its error how the edit went); a refused update that leaves the
 * result as it was; nothing sent with the option off. Also Text Format on the question.
 */
const { startMessagingRun } = require('../harness/n8n');
const { startSandbox, byId, wire } = require('../harness/sandbox');

let sandbox;
let credentials;
let store;
const INBOX = 'conv_00000001';
const QUESTION = 'Refund order 1042 (120 EUR)?';

beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	store = sandbox.store;
	for (const id of ['ct_ann', 'ct_bob']) store.addContact({ id, username: id.slice(3) });
	store.createConversation({ contact_id: 'ct_ann' });
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const parameters = (extra = {}) => ({
	resource: 'message',
	operation: 'sendAndWaitForReply',
	conversationId: byId(INBOX),
	message: QUESTION,
	replyTimeout: 5,
	checkInterval: 0.05,
	...extra,
});
const on = (more = {}) => ({ options: { updateRequestMessage: true, ...more } });
const sent = () => [...store.messages.values()].find((m) => m.message.startsWith(QUESTION));
const puts = () => wire(sandbox).filter((r) => r.method === 'PUT');
/** Form encoding as the node sends it: RFC 3986, so ( ) ! ' * are escaped too. */
const formEncoded = (text) =>
	encodeURIComponent(text).replace(
		/[!'()*]/g,
		(c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
	);
const putText = (put) => new URLSearchParams(put.body).get('message');
/** n8n's default time zone (America/New_York), as the harness's workflow has no setting of its own. */
const CLOCK = '\\d\\d:\\d\\d E[SD]T';
const edited = (line) => new RegExp(`^${QUESTION.replace(/[()?]/g, '\\$&')}\\n\\n${line}$`);

/** Runs the node; `act` is called once the question is in the conversation and checked once. */
async function ask(extra, act) {
	const run = startMessagingRun({ parameters: parameters(extra), credentials });
	if (act) {
		for (let i = 0; ; i++) {
			const checked = sandbox.requests.some(
				(r) => r.method === 'GET' && r.path.startsWith('/v1/messages'),
			);
			if (sent() && checked) break;
			if (i > 600) throw new Error('the question was never sent');
			await new Promise((r) => setTimeout(r, 5));
		}
		act(sent());
	}
	return await run.done;
}
const reply = (from, message) => () => store.sendMessage(from, { conversation_id: INBOX, message });

describe('Send and Wait for Reply: Update Request Message', () => {
	test('Reply: the question is edited to "Answered by ann · HH:MM"; requestUpdate on the output', async () => {
		const { items, error } = await ask(on(), reply('ct_ann', 'Yes, refund it'));
		expect(error).toBeUndefined();
		const [put] = puts();
		expect(put.url).toBe(`/v1/messages/${sent().id}`);
		expect(put.body).toBe(`message=${formEncoded(putText(put))}`);
		expect(putText(put)).toMatch(edited(`Answered by ann · ${CLOCK}`));
		expect(sent().message).toBe(putText(put));
		expect(items[0].json).toMatchObject({
			reply: { message: 'Yes, refund it' },
			timedOut: false,
			requestUpdate: { updated: true },
		});
		expect(items[0].json.sent.message).toBe(QUESTION);
	});

	test('Approval by Reaction: "Approved by" every approver; the react instruction is gone', async () => {
		const { items } = await ask(
			{ responseType: 'approvalByReaction', approvalsRequired: 2, ...on() },
			(message) => store.updateMessage(message.id, { reactions: { '+1': ['ct_ann', 'ct_bob'] } }),
		);
		expect(puts()).toHaveLength(1);
		expect(putText(puts()[0])).toMatch(edited(`Approved by ct_ann, ct_bob · ${CLOCK}`));
		expect(items[0].json).toMatchObject({
			approved: true,
			approvedBy: ['ct_ann', 'ct_bob'],
			requestUpdate: { updated: true },
		});
	});

	test('Approval by Keyword: "Declined by ct_bob", with a template of the user’s own', async () => {
		const { items } = await ask(
			{
				responseType: 'approvalByKeyword',
				...on({ outcomeLine: '{outcome}[ ({by})]' }),
			},
			reply('ct_bob', 'Declined, too risky'),
		);
		expect(putText(puts()[0])).toBe(`${QUESTION}\n\nDeclined (ct_bob)`);
		expect(items[0].json).toMatchObject({ approved: false, declinedBy: ['ct_bob'] });
	});

	test('a time-out: "No answer (timed out)"; with On Timeout = Fail the edit is made and the node fails', async () => {
		const output = await ask({ replyTimeout: 0.3, ...on() });
		expect(putText(puts()[0])).toMatch(edited(`No answer \\(timed out\\) · ${CLOCK}`));
		expect(output.items[0].json).toMatchObject({
			reply: null,
			timedOut: true,
			requestUpdate: { updated: true },
		});

		sandbox.clearRequests();
		const failed = await ask({ replyTimeout: 0.3, onTimeout: 'error', ...on() });
		expect(failed.error.message).toBe('No reply came within 0.3 s');
		expect(puts()).toHaveLength(1);
		// No output carries requestUpdate: the error says how the edit went.
		expect(failed.error.description).toMatch(/ The request message was edited to say so\.$/);
	});

	test('On Timeout = Fail and an update the service refuses: the error says the edit failed, and why', async () => {
		sandbox.failNext({ match: { method: 'PUT', path: '/v1/messages/*' }, status: 403 });
		const failed = await ask({ replyTimeout: 0.3, onTimeout: 'error', ...on() });
		expect(failed.error.message).toBe('No reply came within 0.3 s');
		expect(puts()).toHaveLength(1);
		expect(failed.error.description).toMatch(/ The request message could not be edited: .+\.$/);
		expect(failed.error.description).not.toContain(credentials.accessToken);
		const plain = await ask({ replyTimeout: 0.3, onTimeout: 'error' });
		expect(plain.error.description).not.toContain('request message');
	});

	test('an update the service refuses: the decision stands, the failure is on the output', async () => {
		sandbox.failNext({ match: { method: 'PUT', path: '/v1/messages/*' }, status: 403 });
		const { items, error } = await ask(
			{ responseType: 'approvalByKeyword', ...on() },
			reply('ct_ann', 'approved'),
		);
		expect(error).toBeUndefined();
		expect(puts()).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			approved: true,
			approvedBy: ['ct_ann'],
			timedOut: false,
			requestUpdate: { updated: false, error: expect.any(String), httpCode: '403' },
		});
		expect(items[0].json.requestUpdate.error).not.toContain(credentials.accessToken);
		expect(sent().message).toMatch(/\n\nReply "approve" or "approved" \(nothing else\) to approve/);
	});

	test('the option off (the default): no PUT and no requestUpdate field', async () => {
		const { items } = await ask({}, reply('ct_ann', 'ok'));
		expect(puts()).toEqual([]);
		expect(Object.keys(items[0].json).sort()).toEqual(['reply', 'sent', 'timedOut']);
	});

	test('Text Format "Plain Text From Markdown": the question is sent, and edited, as plain text; an expression around {outcome}', async () => {
		const { items } = await ask(
			{
				message: `**${QUESTION}** see [order](https://shop.example/1042)`,
				...on({
					textFormat: 'plainFromMarkdown',
					outcomeLine: '={{ "Order " + 1042 }}: {outcome}',
				}),
			},
			reply('ct_ann', 'yes'),
		);
		const plain = `${QUESTION} see order (https://shop.example/1042)`;
		expect(items[0].json.sent.message).toBe(plain);
		expect(putText(puts()[0])).toBe(`${plain}\n\nOrder 1042: Answered`);
	});
});
