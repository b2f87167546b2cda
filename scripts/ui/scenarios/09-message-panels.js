'use strict';
const { openNode, chooseOption, addCollectionOption, showField } = require('../browser');
const { expectPanel } = require('../panel');
const {
	messagingDescription,
	expectedPanel,
	expectedNested,
	collectionOptionNames,
} = require('../expected');
const { CREDENTIAL_ID, CREDENTIAL_NAME } = require('../env');

const CASES = {
	send: { resource: 'message', operation: 'send' },
	get: { resource: 'message', operation: 'get' },
	context: { resource: 'conversation', operation: 'getContext' },
	reply: { resource: 'message', operation: 'sendAndWaitForReply' },
	form: { resource: 'message', operation: 'sendAndWait' },
};

const NAMES = {
	send: 'Send',
	get: 'Get',
	context: 'Get Context',
	reply: 'Send and Wait for Reply',
	form: 'Send and Wait for Response',
};

const node = (id, index) => ({
	id,
	name: NAMES[id],
	type: 'n8n-nodes-messaging.messaging',
	typeVersion: 2,
	position: [0, index * 200],
	parameters: CASES[id],
	credentials: { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
});

/**
 * The Messaging node's panels added since the suite was written, chosen as a person does: Send's files
 * (Attachments From Binary Data, Attachment Upload), Get's Download Attachments, Get Context's limits,
 * Send and Wait for Reply's approvals (by reaction, by keyword) and Send and Wait's Custom Form fields.
 */
module.exports = {
	title:
		'Messaging panels: Send’s files, Get’s Download Attachments, Get Context, approval by reaction/keyword, Custom Form',
	async run(t) {
		const { page, url } = t;
		const description = messagingDescription();
		const workflowId = await t.createWorkflow(
			'UI: Messaging panels',
			Object.keys(CASES).map((id, index) => node(id, index)),
		);
		/** Adds a collection's option through its list; the list must offer every option of the description. */
		const addOption = async (choices, collection, option) => {
			const offered = await addCollectionOption(page, collection, option);
			const wanted = collectionOptionNames(description, choices, collection);
			t.expect(
				offered.join(' | ') === wanted.join(' | '),
				`${collection}'s list offers ${offered.join(', ')} instead of ${wanted.join(', ')}`,
			);
		};

		// Send: files from binary data and how they go on the wire.
		await openNode(page, url, workflowId, 'send');
		await addOption(CASES.send, 'additionalFields', 'Attachments From Binary Data');
		await expectPanel(
			t,
			'Send → Additional Fields',
			expectedNested(description, CASES.send, 'additionalFields', { binaryAttachments: 'data' }),
			{ within: 'additionalFields' },
		);
		await addOption(CASES.send, 'options', 'Attachment Upload');
		await expectPanel(
			t,
			'Send → Options',
			expectedNested(description, CASES.send, 'options', { attachmentUpload: 'form' }),
			{ within: 'options' },
		);
		await chooseOption(page, 'attachmentUpload', 'Multipart Upload');
		await expectPanel(
			t,
			'Send → Options, Multipart Upload',
			expectedNested(description, CASES.send, 'options', { attachmentUpload: 'multipart' }),
			{ within: 'options' },
		);
		await expectPanel(t, 'Send', expectedPanel(description, CASES.send));
		await showField(page, 'attachmentUpload');
		await t.shot('send-attachments', 'Send: Attachments From Binary Data, Attachment Upload');

		// Get: Download Attachments.
		await openNode(page, url, workflowId, 'get');
		await addOption(CASES.get, 'options', 'Download Attachments');
		await expectPanel(
			t,
			'Get → Options',
			expectedNested(description, CASES.get, 'options', { downloadAttachments: false }),
			{ within: 'options' },
		);
		await showField(page, 'downloadAttachments');
		await t.shot('get-download', 'Get: Options → Download Attachments');

		// Conversation → Get Context: Max Messages (1 to 500) and Max Characters.
		await openNode(page, url, workflowId, 'context');
		await expectPanel(t, 'Get Context', expectedPanel(description, CASES.context));
		const maxMessages = page.getByTestId('parameter-input-maxMessages').locator('input');
		const bounds = `${await maxMessages.getAttribute('aria-valuemin')} to ${await maxMessages.getAttribute('aria-valuemax')}`;
		await maxMessages.fill('600');
		await maxMessages.press('Tab');
		const kept = Number(await maxMessages.inputValue());
		t.expect(
			bounds === '1 to 500' && kept <= 500,
			`Max Messages takes 1 to 500 (the field's bounds: ${bounds}); 600 typed shows ${kept}`,
		);
		await addOption(CASES.context, 'options', 'Max Characters');
		await expectPanel(
			t,
			'Get Context → Options',
			expectedNested(description, CASES.context, 'options', { maxCharacters: 10_000 }),
			{ within: 'options' },
		);
		await showField(page, 'maxCharacters');
		await t.shot('get-context', 'Conversation → Get Context: Max Messages, Max Characters');

		// Send and Wait for Reply: approval in the chat, by reaction and by keyword.
		await openNode(page, url, workflowId, 'reply');
		for (const [name, value] of [
			['Approval by Reaction', 'approvalByReaction'],
			['Approval by Keyword', 'approvalByKeyword'],
		]) {
			await chooseOption(page, 'responseType', name);
			await expectPanel(
				t,
				`Send and Wait for Reply, ${name}`,
				expectedPanel(description, { ...CASES.reply, responseType: value }),
			);
			await showField(page, 'onTimeout');
			await t.shot(`reply-${value}`, `Send and Wait for Reply: Response Type ${name}`);
		}

		// Send and Wait for Response: a Custom Form's fields.
		await openNode(page, url, workflowId, 'form');
		const form = { ...CASES.form, responseType: 'customForm' };
		await chooseOption(page, 'responseType', 'Custom Form');
		await expectPanel(t, 'Send and Wait, Custom Form', expectedPanel(description, form));
		await expectPanel(
			t,
			'Custom Form → Form Fields',
			expectedNested(description, form, 'formFields'),
			{ within: 'formFields' },
		);
		await chooseOption(page, 'fieldType', 'Dropdown List');
		await expectPanel(
			t,
			'Custom Form → a Dropdown List field',
			expectedNested(description, form, 'formFields', { fieldType: 'dropdown' }),
			{ within: 'formFields' },
		);
		await showField(page, 'multiselect');
		await t.shot('custom-form', 'Send and Wait for Response: Custom Form, a Dropdown List field');
	},
};
