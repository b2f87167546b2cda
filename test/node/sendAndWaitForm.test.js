'use strict';
/**
 * Send and Wait for Response with a Custom Form, through n8n-core's WebhookContext: the page a GET serves,
 * what a POST outputs, and the answers refused with a 400 page while the execution keeps waiting.
 */
const { callMessagingWebhook } = require('../harness/n8n');
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

describe('Send and Wait for Response: Custom Form', () => {
	const formFields = {
		values: [
			{ fieldLabel: 'Amount', fieldType: 'number', requiredField: true },
			{ fieldLabel: 'Reason', fieldType: 'textarea', placeholder: 'Why?' },
			{ fieldLabel: 'Contact', fieldType: 'email' },
			{ fieldLabel: 'Refund on', fieldType: 'date' },
			{
				fieldLabel: 'Channel',
				fieldType: 'dropdown',
				fieldOptions: { values: [{ option: 'Card' }, { option: 'Bank' }] },
			},
			{
				fieldLabel: 'Checks',
				fieldType: 'checkbox',
				fieldOptions: { values: [{ option: 'ID seen' }, { option: 'Receipt seen' }] },
			},
			{ fieldLabel: 'respondedAt', fieldType: 'text' },
		],
	};
	const extra = {
		responseType: 'customForm',
		formFields,
		options: { messageButtonLabel: 'Fill in', responseFormTitle: 'Refund' },
	};
	const open = (url, options) =>
		callMessagingWebhook({
			parameters: parameters(extra),
			credentials,
			url: pathAndQuery(url),
			nodeId: NODE_ID,
			...options,
		});

	test('one signed link; GET serves the form; POST outputs { data: { <label>: value, respondedAt } }', async () => {
		await park(extra);
		const link = linkIn(requestText()[0], 'Fill in');
		expect(signatureIsValid(link)).toBe(true);
		const sentMessageId = store.listMessages({ conversation_id: INBOX })[0].id;

		const form = await open(link);
		expect(form.status).toBe(200);
		expect(form.result).toEqual({ noWebhookResponse: true });
		expect(form.body).toContain('<h1>Refund</h1>');
		expect(form.body).toContain(
			'<input type="number" step="any" id="field-0" name="field-0" required>',
		);
		expect(form.body).toContain(
			'<textarea id="field-1" name="field-1" placeholder="Why?"></textarea>',
		);
		expect(form.body).toContain('<input type="email" id="field-2" name="field-2">');
		expect(form.body).toContain('<input type="date" id="field-3" name="field-3">');
		expect(form.body).toContain(
			'<option value="Card">Card</option><option value="Bank">Bank</option>',
		);
		expect(form.body).toContain('name="field-5" value="Receipt seen"');

		const missing = await open(link, { method: 'POST', body: { 'field-1': 'x' } });
		expect(missing.status).toBe(400);
		expect(missing.result).toEqual({ noWebhookResponse: true });
		expect(missing.body).toContain('&quot;Amount&quot; is required.');
		const notOffered = await open(link, {
			method: 'POST',
			body: { 'field-0': '1', 'field-4': 'Cash' },
		});
		expect(notOffered.status).toBe(400);
		expect(notOffered.result).toEqual({ noWebhookResponse: true });

		const posted = await open(link, {
			method: 'POST',
			body: {
				'field-0': '12.5',
				'field-1': 'Damaged <box>',
				'field-2': 'ann@example.com',
				'field-3': '2026-12-01',
				'field-4': 'Bank',
				'field-5': ['ID seen', 'Receipt seen'],
				'field-6': 'my own',
			},
		});
		expect(posted.status).toBe(200);
		expect(posted.result.workflowData[0][0].json).toEqual({
			data: {
				Amount: 12.5,
				Reason: 'Damaged <box>',
				Contact: 'ann@example.com',
				'Refund on': '2026-12-01',
				Channel: 'Bank',
				Checks: ['ID seen', 'Receipt seen'],
				// set last, as n8n's own nodes do: a field of that name cannot stand in for the server's time
				respondedAt: expect.not.stringMatching(/^my own$/),
			},
			sentMessageId,
		});
		// n8n puts multipart fields under data; an optional field left empty is '' (a number: null, a list: []).
		const multipart = await open(link, { method: 'POST', body: { data: { 'field-0': '3' } } });
		expect(multipart.result.workflowData[0][0].json.data).toEqual({
			Amount: 3,
			Reason: '',
			Contact: '',
			'Refund on': '',
			Channel: '',
			Checks: [],
			respondedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
		});
	});

	test('a hand-made POST: "0x10", " 1e3 " and 2026-02-31 refused with a 400 page naming the field, the execution still waiting', async () => {
		await park(extra);
		const link = linkIn(requestText()[0], 'Fill in');
		const post = (fields) =>
			open(link, { method: 'POST', body: { data: { 'field-0': '1', ...fields } } });
		for (const [fields, problem] of [
			[{ 'field-0': '0x10' }, '&quot;Amount&quot; must be a number (like 12.5, -3 or 1e3).'],
			[{ 'field-0': ' 1e3 ' }, '&quot;Amount&quot; must be a number (like 12.5, -3 or 1e3).'],
			[
				{ 'field-3': '2026-02-31' },
				'&quot;Refund on&quot; must be a date that exists, as YYYY-MM-DD.',
			],
		]) {
			const refused = await post(fields);
			expect(refused.status).toBe(400);
			expect(refused.result).toEqual({ noWebhookResponse: true }); // no output: n8n keeps the execution waiting
			expect(refused.body).toContain(`<p class="error">${problem}</p>`);
			expect(refused.body).toContain(
				'<input type="number" step="any" id="field-0" name="field-0" required>',
			);
		}
		const accepted = await post({ 'field-0': '1e3', 'field-3': '2028-02-29' });
		expect(accepted.status).toBe(200);
		expect(accepted.result.workflowData[0][0].json.data).toMatchObject({
			Amount: 1000,
			'Refund on': '2028-02-29',
		});
	});

	test.each([
		[{ values: [] }, 'Form Fields has no fields'],
		[
			{ values: [{ fieldLabel: ' ', fieldType: 'text' }] },
			'Form Fields field 1 has no Field Label',
		],
		[
			{ values: [{ fieldLabel: 'A' }, { fieldLabel: 'A' }] },
			'Form Fields field 2 ("A") has the same label as another field',
		],
		[
			{ values: [{ fieldLabel: 'A', fieldType: 'colour' }] },
			'Form Fields field 1 ("A") has an unknown Field Type "colour" (one of text, number, email, date, dropdown, checkbox, textarea, password)',
		],
		[
			{
				values: [
					{ fieldLabel: 'A', fieldType: 'dropdown', fieldOptions: { values: [{ option: '' }] } },
				],
			},
			'Form Fields field 1 ("A") has no Field Options',
		],
	])(
		'an invalid form definition %j: an error naming the field and the item, nothing sent',
		async (fields, message) => {
			const { error, waitTill } = await park({ responseType: 'customForm', formFields: fields });
			expect(error.message).toBe(message);
			expect(waitTill).toBeUndefined();
			expect(sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
		},
	);
});
