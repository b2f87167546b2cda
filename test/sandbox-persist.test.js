'use strict';
/**
 * `npm start`'s service keeps its data between starts and never hands out an id an earlier start used:
 * a kept n8n user folder's triggers remember delivered ids, so a reused id would be a message never delivered.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createSandbox } = require('../sandbox/server');
const { persistentDemo } = require('../sandbox/persist');

const TOKENS = { 'demo-token': 'ct_me', 'ann-token': 'ct_ann' };

async function start(file) {
	const data = persistentDemo(file);
	const sandbox = await createSandbox({
		port: 0,
		tokens: TOKENS,
		seed: (s) => data.seed(s),
	}).start();
	return { sandbox, data };
}

test('a second start keeps the first one’s messages and hands out new ids only', async () => {
	const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-data-')), 'service.json');
	const first = await start(file);
	const demoIds = [...first.sandbox.store.messages.keys()];
	expect(demoIds.length).toBeGreaterThan(0); // the demo data on a first start
	const written = first.sandbox.store.sendMessage('ct_ann', {
		conversation_id: 'conv_00000001',
		message: 'written in the first start',
	});
	first.data.save();
	await first.sandbox.stop();

	const second = await start(file);
	const { store } = second.sandbox;
	expect(store.messages.get(written.id)?.message).toBe('written in the first start');
	const next = store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: 'later' });
	expect([...demoIds, written.id]).not.toContain(next.id);
	expect(next.id > written.id).toBe(true);
	const conversation = store.createConversation({ contact_id: 'ct_ann' });
	expect(first.sandbox.store.conversations.has(conversation.id)).toBe(false);
	await second.sandbox.stop();
});

test('without a snapshot the demo data is loaded; save writes only after a change', async () => {
	const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-data-')), 'service.json');
	const { sandbox, data } = await start(file);
	expect(sandbox.store.messages.has('msg_00000001')).toBe(true);
	data.save();
	const written = fs.statSync(file).mtimeMs;
	await new Promise((resolve) => setTimeout(resolve, 20));
	data.save();
	expect(fs.statSync(file).mtimeMs).toBe(written);
	await sandbox.stop();
});
