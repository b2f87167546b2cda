'use strict';
/** Bad input refused with an error naming the item and the field before any request, and Continue On Fail. */
const { runMessagingNode } = require('../harness/n8n');
const { startAnnSaidHi } = require('../harness/annSaidHi');
const { byId } = require('../harness/sandbox');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startAnnSaidHi());
});
afterEach(() => sandbox.stop());

const run = (parameters, extra = {}) => runMessagingNode({ parameters, credentials, ...extra });

describe('bad input: a clear error naming the item and the field, before any request', () => {
	test.each([
		[
			'empty message id',
			{ resource: 'message', operation: 'get', messageId: byId('  ') },
			'Message is empty',
		],
		[
			'dot id',
			{ resource: 'message', operation: 'delete', messageId: byId('..') },
			'Message cannot be ".."',
		],
		[
			'empty conversation',
			{ resource: 'message', operation: 'send', conversationId: byId('={{ "" }}'), text: 'x' },
			'Conversation is empty',
		],
		[
			'empty text',
			{ resource: 'message', operation: 'send', conversationId: byId('conv_00000001'), text: '  ' },
			'Text is empty',
		],
		[
			'attachments not JSON',
			{
				resource: 'message',
				operation: 'send',
				conversationId: byId('conv_00000001'),
				text: 'x',
				additionalFields: { attachments: '[{' },
			},
			'Attachments is not valid JSON (expected an array of objects)',
		],
		[
			'attachments not objects',
			{
				resource: 'message',
				operation: 'send',
				conversationId: byId('conv_00000001'),
				text: 'x',
				additionalFields: { attachments: '["a"]' },
			},
			'Attachments must be a JSON array of objects, like [{"name": "report.pdf"}]',
		],
		[
			'create with nothing',
			{
				resource: 'conversation',
				operation: 'create',
				createWith: 'contact',
				contactId: '={{ " " }}',
			},
			'Contact ID is empty (a conversation needs a contact or a group)',
		],
		[
			'reactions of the wrong shape',
			{
				resource: 'message',
				operation: 'update',
				messageId: byId('msg_00000001'),
				updateFields: { reactionsJson: '{"like": [1]}' },
			},
			'Reactions (JSON) "like" must be a list of reactor names (strings)',
		],
		[
			'reaction rows field left empty (it would remove every reaction)',
			{
				resource: 'message',
				operation: 'update',
				messageId: byId('msg_00000001'),
				updateFields: { text: 'edited', reactions: {} },
			},
			'Reactions has no rows: add a reaction row, or remove the field to keep the reactions (Reactions (JSON) {} removes them all)',
		],
		[
			'limit below 1',
			{ resource: 'message', operation: 'getAll', returnAll: false, limit: 0 },
			'Limit must be a whole number of at least 1',
		],
		[
			'nothing to update',
			{
				resource: 'conversation',
				operation: 'update',
				conversationId: byId('conv_00000001'),
				updateFields: {},
			},
			'Update Fields is empty: add at least one field to change',
		],
		[
			'not a date',
			{
				resource: 'conversation',
				operation: 'update',
				conversationId: byId('conv_00000001'),
				updateFields: { archivedAt: 'next tuesday' },
			},
			'Archived At is not a date: next tuesday (use ISO 8601, e.g. 2025-03-05T14:30:00Z)',
		],
	])('%s', async (_name, parameters, message) => {
		const { error, items } = await run(parameters);
		expect(error?.message).toBe(message);
		expect(items).toEqual([]);
		expect(sandbox.requests).toEqual([]);
	});
});

describe('Continue On Fail', () => {
	const parameters = { resource: 'message', operation: 'get', messageId: '={{ $json.id }}' };
	const input = [{ id: 'msg_00000001' }, { id: '' }, { id: 'msg_missing' }, { id: 'msg_00000001' }];

	test('on: each failing item becomes an error item, the others go on, order and pairing kept', async () => {
		const { items, error } = await run(parameters, { input, continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items.map((i) => i.pairedItem.item)).toEqual([0, 1, 2, 3]);
		expect(items[0].json.id).toBe('msg_00000001');
		expect(items[1].json.error).toBe('Message is empty [item 1]');
		expect(items[2].json).toEqual({
			error: 'Not found: No such message: msg_missing',
			details: {
				description: 'GET /v1/messages/msg_missing returned 404: No such message: msg_missing',
				httpCode: '404',
			},
		});
		expect(items[3].json.id).toBe('msg_00000001');
	});

	test('using the error output: failing items go there (with their input fields), the others to success', async () => {
		const { outputs, error } = await run(parameters, { input, onError: 'continueErrorOutput' });
		expect(error).toBeUndefined();
		const [success, failed] = outputs;
		expect(success.map((i) => [i.pairedItem.item, i.json.id])).toEqual([
			[0, 'msg_00000001'],
			[3, 'msg_00000001'],
		]);
		expect(failed.map((i) => i.pairedItem.item)).toEqual([1, 2]);
		expect(failed[0].json).toEqual({
			id: '',
			error: 'Message is empty [item 1]',
			details: { description: 'Check the "Message" parameter of item 1.' },
		});
		expect(failed[1].json).toMatchObject({
			id: 'msg_missing',
			error: 'Not found: No such message: msg_missing',
			details: { httpCode: '404' },
		});
	});

	test('off: the first failure stops the node with the service’s own message', async () => {
		const { error } = await run(parameters, {
			input: [{ id: 'msg_00000001' }, { id: 'msg_missing' }],
		});
		expect(error.message).toBe('Not found: No such message: msg_missing');
		expect(error.description).toBe(
			'GET /v1/messages/msg_missing returned 404: No such message: msg_missing',
		);
	});
});
