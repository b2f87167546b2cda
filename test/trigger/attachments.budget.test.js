'use strict';
/**
 * Download Attachments on the trigger against files that never finish (a loopback file server that
 * drips, on jest's fake clock): the downloads of one check share a budget within its interval and run a
 * few at a time; a file over the budget goes to the message's attachmentErrors, the message is delivered
 * by the budget's end, the file's connection is closed, and the next check lists on time.
 */
const { createTriggerHost, createPollingTrigger, TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox } = require('../harness/sandbox');
const { startFileServer } = require('../harness/fileServer');

let sandbox;
let credentials;
let files;
let host;
beforeEach(async () => {
	jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	files = await startFileServer();
});
afterEach(async () => {
	if (host?.process) await host.stop();
	host = undefined;
	jest.useRealTimers();
	await files.stop();
	await sandbox.stop();
});

const sendWith = (text, attachments) =>
	sandbox.store.sendMessage('ct_ann', {
		conversation_id: 'conv_00000001',
		message: text,
		attachments,
	});
const fine = (name, text) =>
	files.route(`/${name}`, (req, res) => {
		res.writeHead(200, { 'Content-Type': 'text/plain' });
		res.end(text);
	});
/** Announces 120 bytes, then sends one every 10 s: 20 minutes in all, never 30 s without a byte. */
const drip = (name) => files.drip(`/${name}`, { length: 120, everyMs: 10_000 });
const lists = () => sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/messages');
const parameters = {
	interval: 10,
	unit: 'seconds',
	options: { downloadAttachments: true, allowPrivateAddresses: true },
};
/** Interval 10 s: the check's downloads have 7 s (three quarters, in whole seconds). */
const BUDGET_MS = 7_000;

test('v2: a dripping file goes to attachmentErrors within the budget; the message and the next check are on time', async () => {
	host = await createTriggerHost({ credentials, parameters }).start();
	sendWith('slow file', [
		{ name: 'drip.bin', url: drip('drip.bin') },
		{ name: 'fine.txt', url: fine('fine.txt', 'fine') },
	]);
	const before = Date.now();
	const took = await host.tick();
	// The wait of one interval, then the check: its downloads end with the budget.
	expect(took).toBeLessThanOrEqual(10_000 + BUDGET_MS + 1_000);
	expect(host.executions).toHaveLength(1);
	const [item] = host.executions[0].items;
	expect(item.json.message).toBe('slow file');
	expect(item.json.attachmentErrors).toEqual([
		expect.stringMatching(
			/^Attachment 0 of message msg_00000001 \(drip\.bin\) could not be downloaded: it took longer than the 7 s a check gives its downloads \(\d+ of 120 bytes had arrived\)$/,
		),
	]);
	expect(Buffer.from(item.binary.attachment_0.data, 'base64').toString()).toBe('fine');
	const dripped = files.requests.find((r) => r.path === '/drip.bin');
	expect(dripped.closedAt).toBeLessThanOrEqual(host.executions[0].startedAt);
	expect(host.executions[0].startedAt - before).toBeLessThanOrEqual(10_000 + BUDGET_MS + 1_000);
	host.executions[0].end('success');

	// A message sent 5 s later is listed by the next check, one interval after this one.
	const listed = lists().length;
	await jest.advanceTimersByTimeAsync(5_000);
	sendWith('next one', []);
	const next = await host.tick();
	expect(next).toBeLessThanOrEqual(10_000);
	expect(lists().length).toBe(listed + 1);
	expect(host.executions.map((e) => e.json[0].message)).toEqual(['slow file', 'next one']);
});

test('v2: at most three files at once; one slow file holds no other back, and files not started by the budget’s end are recorded', async () => {
	host = await createTriggerHost({ credentials, parameters }).start();
	sendWith('a', [
		{ name: 'slow1.bin', url: drip('slow1.bin') },
		{ name: 'quick.txt', url: fine('quick.txt', 'quick') },
	]);
	sendWith('b', [
		{ name: 'slow2.bin', url: drip('slow2.bin') },
		{ name: 'slow3.bin', url: drip('slow3.bin') },
		{ name: 'slow4.bin', url: drip('slow4.bin') },
		{ name: 'late.txt', url: fine('late.txt', 'late') },
	]);
	const took = await host.tick();
	expect(took).toBeLessThanOrEqual(10_000 + BUDGET_MS + 1_000);
	expect(files.maxOpen).toBeLessThanOrEqual(3);
	expect(files.requests.map((r) => r.path)).toEqual([
		'/slow1.bin',
		'/quick.txt',
		'/slow2.bin',
		'/slow3.bin',
	]);
	const [a, b] = host.executions.flatMap((e) => e.items);
	expect(Buffer.from(a.binary.attachment_0.data, 'base64').toString()).toBe('quick');
	expect(a.json.attachmentErrors).toEqual([expect.stringMatching(/\(slow1\.bin\) .*took longer/)]);
	expect(b.binary).toBeUndefined();
	expect(b.json.attachmentErrors).toEqual([
		expect.stringMatching(/^Attachment 0 of message msg_00000002 \(slow2\.bin\) .*took longer/),
		expect.stringMatching(/^Attachment 1 of message msg_00000002 \(slow3\.bin\) .*took longer/),
		'Attachment 2 of message msg_00000002 (slow4.bin) could not be downloaded: it was not started: the 7 s a check gives its downloads were used up',
		'Attachment 3 of message msg_00000002 (late.txt) could not be downloaded: it was not started: the 7 s a check gives its downloads were used up',
	]);
});

test('v1: the poll’s downloads end within 45 s (three quarters of n8n’s shortest poll interval)', async () => {
	const trigger = createPollingTrigger({
		credentials,
		parameters: { options: { downloadAttachments: true, allowPrivateAddresses: true } },
	});
	expect(await settle(trigger.poll())).toBeNull(); // activation notes where the stream stands
	sendWith('slow file', [{ name: 'drip.bin', url: drip('drip.bin') }]);
	const before = Date.now();
	const [items] = await settle(trigger.poll());
	expect(Date.now() - before).toBeLessThanOrEqual(46_000);
	expect(items.map((i) => i.json.message)).toEqual(['slow file']);
	expect(items[0].json.attachmentErrors).toEqual([
		expect.stringMatching(
			/\(drip\.bin\) could not be downloaded: it took longer than the 45 s a check gives its downloads \(\d+ of 120 bytes had arrived\)$/,
		),
	]);
});

/** Awaits a promise whose work waits on fake timers: runs the next timer whenever nothing else moves. */
async function settle(promise) {
	let done = false;
	const result = promise.finally(() => (done = true));
	for (let still = 0; !done; still++) {
		if (still > 2_000 && jest.getTimerCount() > 0) {
			still = 0;
			await jest.advanceTimersToNextTimerAsync();
		}
		await new Promise((resolve) => setImmediate(resolve));
	}
	return await result;
}
