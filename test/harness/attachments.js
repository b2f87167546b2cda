'use strict';
/**
 * The attachments suites' setting: the sandbox with Ann and one conversation with her (conv_00000001), the
 * Messaging node's message operations on it through n8n-core, and files as an item's binary data.
 */
const crypto = require('node:crypto');
const { runMessagingNode } = require('./n8n');
const { startSandbox, byId } = require('./sandbox');

/** A sandbox (its `options` added) holding Ann and her conversation, its request log cleared. */
async function startWithAnn(options = {}) {
	const started = await startSandbox({ seed: 'none', ...options });
	started.sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	started.sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	started.sandbox.clearRequests();
	return started;
}

/** `run` a message operation and `send` to Ann's conversation, with the credentials `current()` gives. */
function messageRunners(current) {
	const run = (parameters, extra = {}) =>
		runMessagingNode({
			parameters: { resource: 'message', ...parameters },
			credentials: current(),
			...extra,
		});
	const send = (additionalFields, options = {}, input) =>
		run(
			{
				operation: 'send',
				conversationId: byId('conv_00000001'),
				text: 'files',
				additionalFields,
				options,
			},
			input ? { input } : {},
		);
	return { run, send };
}

const file = (text, fileName, mimeType = 'text/plain') => ({
	base64: Buffer.from(text).toString('base64'),
	fileName,
	mimeType,
});
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');

module.exports = { startWithAnn, messageRunners, file, sha256 };
