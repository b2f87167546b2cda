'use strict';
/**
 * Download Attachments on the Messaging Trigger (v2 in the simulated n8n, v1 through PollContext): each
 * message's files as binary fields; a dropped download is retried; a file that cannot be fetched never
 * loses its message, which is delivered with attachmentErrors.
 */
const { createTriggerHost, createPollingTrigger, TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox, TOKEN } = require('../harness/sandbox');

let sandbox;
let credentials;
let host;
beforeEach(async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
});
afterEach(async () => {
	if (host?.process) await host.stop();
	host = undefined;
	jest.useRealTimers();
	await sandbox.stop();
});

const sendWith = (text, attachments) =>
	sandbox.store.sendMessage('ct_ann', {
		conversation_id: 'conv_00000001',
		message: text,
		attachments,
	});
const bytesOf = (item, field) => Buffer.from(item.binary[field].data, 'base64').toString();
const parameters = { interval: 5, unit: 'seconds', options: { downloadAttachments: true } };

test('v2: each message its files; a dropped download is retried; a file that keeps failing is recorded, the message delivered once', async () => {
	// The second origin is on loopback, an internal address (test/node/attachmentAddresses.test.js).
	const options = { ...parameters.options, allowPrivateAddresses: true };
	host = await createTriggerHost({ credentials, parameters: { ...parameters, options } }).start();
	const here = sandbox.addFile('first file', 'one.txt', 'text/plain');
	const far = sandbox.addFile('far file', 'far.txt', 'text/plain', { other: true });
	sendWith('with files', [{ name: 'one.txt', url: here }, { url: far }]);
	sandbox.failNext({ match: { path: '/files/*' }, drop: 'before' });
	await host.tick();
	expect(host.executions).toHaveLength(1);
	const [item] = host.executions[0].items;
	expect(item.json.message).toBe('with files');
	expect(bytesOf(item, 'attachment_0')).toBe('first file');
	expect(item.binary.attachment_0).toMatchObject({ fileName: 'one.txt', mimeType: 'text/plain' });
	expect(bytesOf(item, 'attachment_1')).toBe('far file');
	expect(item.json.attachmentErrors).toBeUndefined();
	const fetches = sandbox.requests.filter((r) => r.path.startsWith('/files/'));
	expect(fetches.map((r) => r.status)).toEqual(['dropped', 200]);
	expect(sandbox.other.requests.map((r) => r.headers.authorization)).toEqual([undefined]);
	host.executions[0].end('success');

	sendWith('broken file', [{ name: 'gone.txt', url: `${sandbox.url}/files/att_999999/gone.txt` }]);
	await host.tick();
	expect(host.executions).toHaveLength(2);
	const [broken] = host.executions[1].items;
	expect(broken.json.message).toBe('broken file');
	expect(broken.binary).toBeUndefined();
	expect(broken.json.attachmentErrors).toEqual([
		expect.stringMatching(
			/^Attachment 0 of message msg_00000002 \(gone.txt\) could not be downloaded: http:\/\/127.0.0.1:\d+\/files\/att_999999\/gone.txt answered 404$/,
		),
	]);
	host.executions[1].end('success');
	await host.tick();
	expect(host.executions).toHaveLength(2); // nothing twice
	expect(JSON.stringify(host.logs)).not.toContain(TOKEN);
});

test('v1: the poll delivers the files, and the message with its failure when a file cannot be read', async () => {
	jest.useRealTimers();
	const trigger = createPollingTrigger({
		credentials,
		parameters: { options: { downloadAttachments: true } },
	});
	expect(await trigger.poll()).toBeNull(); // activation notes where the stream stands
	sendWith('one', [{ name: 'a.txt', url: sandbox.addFile('A', 'a.txt', 'text/plain') }]);
	sendWith('two', [{ name: 'b.txt' }]);
	const [items] = await trigger.poll();
	expect(items.map((i) => i.json.message)).toEqual(['one', 'two']);
	expect(bytesOf(items[0], 'attachment_0')).toBe('A');
	expect(items[1].json.attachmentErrors).toEqual([
		expect.stringMatching(
			/Attachment 0 of message msg_00000002 \(b.txt\) could not be downloaded: has no URL/,
		),
	]);
});
