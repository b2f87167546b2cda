'use strict';
/**
 * Send and Wait for Response through n8n-core: the request message on the wire with n8n's signed
 * links, the execution parked with putExecutionToWait, and the webhook side (a click) through
 * n8n-core's WebhookContext; the Custom Form in sendAndWaitForm.test.js. n8n's own check of the
 * signature is exercised end to end (test/e2e).
 */
const { WAIT_INDEFINITELY } = require('n8n-workflow');
const { runMessagingNode, callMessagingWebhook } = require('../harness/n8n');
const { byId, wire } = require('../harness/sandbox');
const {
	INBOX,
	NODE_ID,
	startInbox,
	parameters,
	inboxHelpers,
	linkIn,
	pathAndQuery,
	signatureIsValid,
} = require('../harness/sendAndWait');

let sandbox;
let credentials;
let store;
beforeEach(async () => ({ sandbox, credentials, store } = await startInbox()));
afterEach(() => sandbox.stop());
const { park, requestText } = inboxHelpers(() => ({ credentials, store }));

describe('Send and Wait for Response: the request', () => {
	test('Approval: sends the message with n8n-signed approve and decline links, parks the execution', async () => {
		const before = Date.now();
		const { waitTill, items, status, error } = await park(
			{
				approvalOptions: {
					values: { approvalType: 'double', approveLabel: 'Yes, archive', disapproveLabel: 'No' },
				},
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' },
					},
				},
			},
			[{ n: 1 }],
		);
		expect(error).toBeUndefined();
		expect(status).toBe('waiting');
		expect(waitTill.getTime()).toBeGreaterThanOrEqual(before + 2 * 3600_000);
		expect(waitTill.getTime()).toBeLessThan(Date.now() + 2 * 3600_000);
		// While waiting, the node shows its input items, as n8n's send-and-wait nodes do.
		expect(items.map((i) => i.json)).toEqual([{ n: 1 }]);

		const [text] = requestText();
		expect(text).toMatch(/^Archive the conversation with Ann\?\n\nYes, archive: \S+\nNo: \S+$/);
		const approve = linkIn(text, 'Yes, archive');
		const decline = linkIn(text, 'No');
		expect(approve.pathname).toBe(`/webhook-waiting/test-execution/${NODE_ID}`);
		expect(approve.searchParams.get('approved')).toBe('true');
		expect(decline.searchParams.get('approved')).toBe('false');
		expect(signatureIsValid(approve)).toBe(true);
		expect(signatureIsValid(decline)).toBe(true);
		// The signature covers the answer: the approve signature on a decline link is not valid.
		decline.searchParams.set('signature', approve.searchParams.get('signature'));
		expect(signatureIsValid(decline)).toBe(false);

		const requests = wire(sandbox);
		expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
			`GET /v1/conversations/${INBOX}`,
			'POST /v1/messages',
		]);
		expect(requests[1].body).toBe(`conversation_id=${INBOX}&message=${encodeURIComponent(text)}`);
	});

	test('Approve Only by default; no Limit Wait Time waits indefinitely; a date limit is that date', async () => {
		const unlimited = await park();
		expect(unlimited.waitTill).toEqual(WAIT_INDEFINITELY);
		expect(requestText()[0]).toMatch(/\n\nApprove: \S+$/);
		const dated = await park({
			options: {
				limitWaitTime: {
					values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2031-05-06T07:08:09Z' },
				},
			},
		});
		expect(dated.waitTill).toEqual(new Date('2031-05-06T07:08:09Z'));
	});

	test('Free Text: one "Respond" link to the form, signed for this node', async () => {
		await park({ responseType: 'freeText', options: { messageButtonLabel: 'Answer here' } });
		const respond = linkIn(requestText()[0], 'Answer here');
		expect(respond.pathname).toBe(`/webhook-waiting/test-execution/${NODE_ID}`);
		expect(signatureIsValid(respond)).toBe(true);
	});

	test.each([
		['approval', {}],
		['freeText', {}],
		['customForm', { formFields: { values: [{ fieldLabel: 'Reason', fieldType: 'text' }] } }],
	])(
		'%s: asks n8n to check the links’ signature where n8n checks only when asked (before 2.20)',
		async (responseType, extra) => {
			// n8n-core 2.0.3's method, which later versions removed when they began to check every link.
			const { ExecuteContext } = require('n8n-core');
			const prototype = /** @type {any} */ (ExecuteContext.prototype); // typed as n8n-core now, without it
			const asked = [];
			prototype.setSignatureValidationRequired = function () {
				asked.push(this.getNode().name);
			};
			try {
				await park({ responseType, ...extra });
			} finally {
				delete prototype.setSignatureValidationRequired;
			}
			expect(asked).toEqual(['Messaging']);
		},
	);

	test('several input items: one request (from the first item), as n8n’s nodes do', async () => {
		await park({ message: '={{ "Archive " + $json.who + "?" }}' }, [
			{ who: 'Ann' },
			{ who: 'Bob' },
		]);
		expect(requestText()).toHaveLength(1);
		expect(requestText()[0]).toMatch(/^Archive Ann\?/);
	});

	test.each([
		[{ message: '={{ "  " }}' }, 'Message is empty'],
		[{ conversationId: byId('conv_gone') }, 'Conversation "conv_gone" does not exist'],
		[
			{
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: -1, resumeUnit: 'hours' },
					},
				},
			},
			'Limit Wait Time must be a positive amount of hours (got "-1")',
		],
		[
			{
				options: {
					limitWaitTime: {
						values: { limitType: 'atSpecifiedTime', maxDateAndTime: 'next tuesday' },
					},
				},
			},
			'Limit Wait Time has no valid Max Date and Time (got "next tuesday")',
		],
	])('bad input %j: a clear error, nothing sent, nothing parked', async (extra, message) => {
		const { error, waitTill } = await park(extra);
		expect(error.message).toBe(message);
		expect(waitTill).toBeUndefined();
		expect(sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
	});

	test('Continue On Fail: the failure is the output item and the execution does not wait', async () => {
		const { items, error } = await runMessagingNode({
			parameters: parameters({ conversationId: byId('conv_gone') }),
			credentials,
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([
			{
				error: 'Conversation "conv_gone" does not exist',
				details: { description: 'Check the "Conversation" parameter.' },
			},
		]);
	});
});

describe('Send and Wait for Response: the webhook', () => {
	async function sentLinks(extra) {
		await park(extra);
		const text = requestText()[0];
		const sentMessageId = store.listMessages({ conversation_id: INBOX })[0].id;
		return { text, sentMessageId };
	}
	const click = (extra, url, options = {}) =>
		callMessagingWebhook({
			parameters: parameters(extra),
			credentials,
			url: pathAndQuery(url),
			nodeId: NODE_ID,
			...options,
		});
	const press = (extra, url, options = {}) =>
		click(extra, url, { method: 'POST', body: {}, ...options });

	test('the approve link: a GET shows a button and decides nothing; its POST records { approved: true }', async () => {
		const extra = {
			approvalOptions: { values: { approvalType: 'double', approveLabel: 'Refund it' } },
		};
		const { text, sentMessageId } = await sentLinks(extra);
		store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'I will click it' }); // the request is no longer the newest
		const shown = await click(extra, linkIn(text, 'Refund it'));
		expect(shown.status).toBe(200);
		expect(shown.result).toEqual({ noWebhookResponse: true });
		expect(shown.headers['content-security-policy']).toMatch(/^sandbox allow-forms;/);
		expect(shown.body).toContain('<p>Archive the conversation with Ann?</p>');
		expect(shown.body).toContain('<form method="post" accept-charset="utf-8">');
		expect(shown.body).toContain('<button type="submit">Refund it</button>');
		expect(shown.body).not.toMatch(/<script|<meta http-equiv|onload|autofocus/i);

		const answer = await click(extra, linkIn(text, 'Refund it'), { method: 'POST', body: {} });
		expect(answer.status).toBe(200);
		expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
		expect(answer.body).toContain('Got it, thanks');
		const [[item]] = answer.result.workflowData;
		expect(item.json).toEqual({
			data: { approved: true, respondedAt: expect.any(String) },
			sentMessageId,
		});
		expect(answer.result.noWebhookResponse).toBe(true);

		const declineShown = await click(extra, linkIn(text, 'Decline'));
		expect(declineShown.body).toContain('<button type="submit">Decline</button>');
		const declined = await click(extra, linkIn(text, 'Decline'), { method: 'POST', body: {} });
		expect(declined.result.workflowData[0][0].json.data.approved).toBe(false);
	});

	test('whoever fetches a link (a preview, a scanner, a browser) decides nothing: only the POST does', async () => {
		const { text } = await sentLinks();
		for (const agent of [
			'',
			'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
			'Iframely/1.3.1 (+https://iframely.com/docs/about)',
			'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0 Safari/537.36',
			'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
		]) {
			for (const method of ['GET', 'HEAD']) {
				const answer = await click({}, linkIn(text, 'Approve'), {
					method,
					headers: { 'user-agent': agent },
				});
				expect([agent, method, answer.status, answer.result]).toEqual([
					agent,
					method,
					200,
					{ noWebhookResponse: true },
				]);
			}
		}
	});

	test('a link without a signature is refused (401) and resumes nothing', async () => {
		const { text } = await sentLinks();
		const unsigned = linkIn(text, 'Approve');
		unsigned.searchParams.delete('signature');
		for (const method of ['GET', 'POST']) {
			const answer = await click({}, unsigned, { method, body: {} });
			expect(answer.status).toBe(401);
			expect(answer.result).toEqual({ noWebhookResponse: true });
		}
	});

	test('Free Text: GET serves the form (escaped), POST records the text; an empty answer is asked again', async () => {
		const extra = {
			responseType: 'freeText',
			message: 'Why <archive>?',
			options: { responseFormTitle: 'Reason & details', responseFormButtonLabel: 'Send it' },
		};
		const { text, sentMessageId } = await sentLinks(extra);
		const link = linkIn(text, 'Respond');
		const form = await click(extra, link);
		expect(form.status).toBe(200);
		expect(form.result).toEqual({ noWebhookResponse: true });
		expect(form.body).toContain('<h1>Reason &amp; details</h1>');
		expect(form.body).toContain('<p>Why &lt;archive&gt;?</p>');
		expect(form.body).toContain('<form method="post" accept-charset="utf-8">');
		expect(form.body).toContain('<textarea id="response" name="response" required></textarea>');
		expect(form.body).toContain('<button type="submit">Send it</button>');
		expect(form.body).not.toMatch(/<script/i);

		const empty = await click(extra, link, { method: 'POST', body: { response: '  ' } });
		expect(empty.status).toBe(400);
		expect(empty.result).toEqual({ noWebhookResponse: true });

		const posted = await click(extra, link, {
			method: 'POST',
			body: { response: 'Ann left the team.\nKeep it 30 days.' },
		});
		expect(posted.status).toBe(200);
		expect(posted.result.workflowData[0][0].json).toEqual({
			data: { text: 'Ann left the team.\nKeep it 30 days.', respondedAt: expect.any(String) },
			sentMessageId,
		});
	});

	test('sentMessageId is the request, not a later message quoting its link', async () => {
		const { text, sentMessageId } = await sentLinks();
		const link = linkIn(text, 'Approve');
		// Pasted back into the chat by the person: before, the newest message holding the link was taken,
		// so a later "delete sentMessageId" step would have deleted the person's message.
		store.sendMessage('ct_ann', { conversation_id: INBOX, message: `is this right? ${link}` });
		const answer = await press({}, link);
		expect(answer.result.workflowData[0][0].json.sentMessageId).toBe(sentMessageId);
	});

	test('a service whose ids are numbers: sentMessageId is the request message’s id, as text', async () => {
		sandbox.set({ quirks: { numericIds: true } });
		const { text, sentMessageId } = await sentLinks();
		const answer = await press({}, linkIn(text, 'Approve'));
		expect(answer.result.workflowData[0][0].json.sentMessageId).toBe(
			String(Number(sentMessageId.replace('msg_', ''))),
		);
	});

	test('a service that never says has_more: sentMessageId is found beyond the lookup’s first page', async () => {
		const { text, sentMessageId } = await sentLinks();
		for (let i = 0; i < 60; i++)
			store.sendMessage('ct_ann', { conversation_id: INBOX, message: `later ${i}` });
		sandbox.set({ quirks: { listShape: 'no-has-more' } });
		const answer = await press({}, linkIn(text, 'Approve'));
		expect(answer.result.workflowData[0][0].json.sentMessageId).toBe(sentMessageId);
	});

	test('when the request message cannot be found the response still counts (sentMessageId: null)', async () => {
		const { text } = await sentLinks();
		store.deleteMessage(store.listMessages({ conversation_id: INBOX })[0].id);
		const answer = await press({}, linkIn(text, 'Approve'));
		expect(answer.result.workflowData[0][0].json).toMatchObject({
			data: { approved: true },
			sentMessageId: null,
		});
	});

	const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;';
	const hostileFree = {
		responseType: 'freeText',
		message: HOSTILE,
		options: {
			responseFormTitle: HOSTILE,
			responseFormDescription: HOSTILE,
			responseFormButtonLabel: HOSTILE,
		},
	};
	const hostileForm = {
		...hostileFree,
		responseType: 'customForm',
		formFields: {
			values: [
				{ fieldLabel: HOSTILE, fieldType: 'text', placeholder: HOSTILE, requiredField: true },
				{
					fieldLabel: 'Pick',
					fieldType: 'dropdown',
					fieldOptions: { values: [{ option: HOSTILE }] },
				},
				{
					fieldLabel: 'Tick',
					fieldType: 'checkbox',
					fieldOptions: { values: [{ option: HOSTILE }] },
				},
			],
		},
	};
	test.each([
		[
			'approval',
			{ message: HOSTILE, approvalOptions: { values: { approveLabel: HOSTILE } } },
			'GET',
		],
		['free text', hostileFree, 'GET'],
		['free text, asked again', hostileFree, 'POST'],
		['custom form', hostileForm, 'GET'],
		['custom form, asked again', hostileForm, 'POST'],
	])('%s page: every value shown is text, never markup', async (_name, extra, method) => {
		await park(extra);
		const link = new URL(/: (\S+)$/m.exec(requestText()[0])[1]);
		const page = await click(extra, link, { method, body: {} });
		expect(page.result).toEqual({ noWebhookResponse: true });
		expect(page.body).not.toMatch(/<script|<img/i);
		expect(page.body).toContain(
			'&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;',
		);
	});
});
