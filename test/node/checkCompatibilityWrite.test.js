'use strict';
/** Check Compatibility's write probe, its bad input, and services that refuse the probes. */
const { runMessagingNode } = require('../harness/n8n');
const { startSandbox, wire, TOKEN } = require('../harness/sandbox');

let sandbox;
let credentials;
afterEach(() => sandbox?.stop());

async function setup(options = {}) {
	({ sandbox, credentials } = await startSandbox({ seed: 'none', ...options }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: 'hi' });
	sandbox.clearRequests();
}

const check = async (parameters = {}, extra = {}) => {
	const { items, error } = await runMessagingNode({
		parameters: { resource: 'service', operation: 'checkCompatibility', ...parameters },
		credentials,
		...extra,
	});
	return { report: items[0]?.json, items, error };
};
const sent = () => wire(sandbox).map((r) => `${r.method} ${r.url}${r.body ? ` ${r.body}` : ''}`);
const READS = [
	'GET /v1/conversations?limit=100',
	'GET /v1/conversations?limit=1&starting_after=conv_00000001',
	'GET /v1/messages?limit=100',
	'GET /v1/messages?limit=1&starting_after=msg_00000001',
	'GET /v1/messages/n8n-compatibility-check-no-such-message',
];

describe('the write probe (off by default)', () => {
	test('on: one conversation created with the contact, deleted, read again; the store as before', async () => {
		await setup();
		const { report, error } = await check({ writeProbe: true, contactId: 'ct_ann' });
		expect(error).toBeUndefined();
		expect(sent()).toEqual([
			...READS,
			'POST /v1/conversations contact_id=ct_ann',
			'DELETE /v1/conversations/conv_00000002',
			'GET /v1/conversations/conv_00000002',
		]);
		expect(report.writeProbe).toEqual({
			result: 'create and delete work',
			status: 'fine',
			evidence:
				'POST /v1/conversations with contact_id=ct_ann created conv_00000002; DELETE answered 200 with JSON {id, deleted}; GET /v1/conversations/conv_00000002 then answered 404',
			nodeWill:
				'Create outputs the conversation the service returns; Delete outputs { id, deleted: true } whatever the service’s body.',
		});
		expect([...sandbox.store.conversations.keys()]).toEqual(['conv_00000001']);
	});

	test('the delete answer’s shape: an empty 204', async () => {
		await setup();
		sandbox.failNext({ match: { method: 'DELETE' }, process: true, status: 204, body: '' });
		const { report } = await check({ writeProbe: true, contactId: 'ct_ann' });
		expect(report.writeProbe.evidence).toMatch(/; DELETE answered 204 with an empty body; /);
		expect(report.writeProbe.result).toBe('create and delete work');
	});

	test('on without a Contact ID: an error naming the field, nothing sent', async () => {
		await setup();
		const { error } = await check({ writeProbe: true, contactId: '  ' });
		expect(error.message).toBe(
			'Contact ID is empty (Write Probe creates a conversation with this contact, then deletes it)',
		);
		expect(wire(sandbox)).toEqual([]);
	});

	test('several items: the error names the item', async () => {
		await setup();
		const { error } = await check(
			{ writeProbe: true, contactId: '={{ $json.contact }}' },
			{ input: [{ contact: 'ct_ann' }, { contact: '' }] },
		);
		expect(error.message).toMatch(/^Contact ID is empty \(.*\) \[item 1\]$/);
	});

	test('a contact the service does not know: create refused, nothing deleted', async () => {
		await setup();
		const { report } = await check({ writeProbe: true, contactId: 'ct_nobody' });
		expect(report.writeProbe).toMatchObject({ result: 'create refused', status: 'attention' });
		expect(report.writeProbe.evidence).toMatch(
			/^POST \/v1\/conversations with contact_id=ct_nobody failed: Not found: /,
		);
		expect(sent().filter((line) => !line.startsWith('GET'))).toEqual([
			'POST /v1/conversations contact_id=ct_nobody',
		]);
		expect(report.attention).toEqual(['writeProbe']);
	});

	test('a delete refused: the report names the conversation left behind', async () => {
		await setup();
		sandbox.failNext({ match: { method: 'DELETE' }, status: 403, body: { error: 'forbidden' } });
		const { report } = await check({ writeProbe: true, contactId: 'ct_ann' });
		expect(report.writeProbe.result).toBe('delete refused');
		expect(report.writeProbe.nodeWill).toMatch(/conversation conv_00000002 is still there/);
		expect(sandbox.store.conversations.has('conv_00000002')).toBe(true);
	});

	test('a delete that answers 200 and keeps the conversation', async () => {
		await setup();
		sandbox.failNext({ match: { method: 'DELETE' }, status: 200, body: 'Deleted' });
		const { report } = await check({ writeProbe: true, contactId: 'ct_ann' });
		expect(report.writeProbe.result).toBe('delete does not delete');
		expect(report.writeProbe.evidence).toMatch(
			/DELETE answered 200 with plain text; GET .* still answers it$/,
		);
	});
});

describe('services that refuse the probes', () => {
	test('a refused token: the check stops at its first request, naming it', async () => {
		await setup({ credentials: { accessToken: 'wrong-token-1234' } });
		const { error, items } = await check();
		expect(error.message).toBe(
			'Check Compatibility stopped at GET /v1/conversations?limit=100: Authentication failed: check the access token of the Messaging API credential',
		);
		expect(items).toEqual([]);
		expect(sent()).toEqual(['GET /v1/conversations?limit=100']);
	});

	test('every request failing (500): one probe’s retries, then the check stops; nothing more is sent', async () => {
		await setup({ faults: { rate500: 1 } });
		const { error } = await check({ writeProbe: true, contactId: 'ct_ann' });
		expect(error.message).toBe(
			'Check Compatibility stopped at GET /v1/messages?limit=100: The Messaging service failed (500) (the run stopped retrying)',
		);
		expect(sent()).toEqual(Array(6).fill('GET /v1/conversations?limit=100'));
	});

	test('On Error → Continue: the stop becomes the item’s error', async () => {
		await setup({ credentials: { accessToken: 'wrong-token-1234' } });
		const { items } = await check({}, { continueOnFail: true });
		expect(items[0].json.error).toMatch(/^Check Compatibility stopped at GET /);
	});

	test('one list refused (403): its findings say why, the rest of the report goes on', async () => {
		await setup();
		sandbox.failNext({
			match: { method: 'GET', path: '/v1/messages' },
			status: 403,
			message: 'messages are not for this token',
			times: 'always',
		});
		const { report, error } = await check();
		expect(error).toBeUndefined();
		expect(report.messages.order).toEqual({
			result: 'unknown',
			status: 'unknown',
			evidence:
				'GET /v1/messages failed: The access token is not allowed to do this: messages are not for this token',
			nodeWill: 'Get Many of messages fails with this error, so the order cannot be seen.',
		});
		expect(report.messages.pageSize.status).toBe('unknown');
		expect(report.conversations.cursor.result).toBe('honoured');
		expect(report.errorBody.result).toBe('404, JSON, reason in error.message');
		expect(report.requests[2]).toBe('GET /v1/messages?limit=100 → 403');
	});

	test('a list that is not a list: reported, not thrown', async () => {
		await setup({ quirks: { listShape: 'bare-array' } });
		const { report, error } = await check();
		expect(error).toBeUndefined();
		expect(report.conversations.cursor.evidence).toBe(
			'GET /v1/conversations failed: The Messaging service answered a list without a "data" array',
		);
	});

	test('the access token never reaches the report, even when the service echoes it', async () => {
		await setup({ quirks: { echoAuthorization: true } });
		const { report } = await check();
		const text = JSON.stringify(report);
		expect(text).toContain('[redacted]');
		expect(text).not.toContain(TOKEN);
		expect(text).not.toContain(TOKEN.slice(0, 8));
	});
});
