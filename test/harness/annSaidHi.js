'use strict';
/** The error suites' setting: the sandbox with Ann, her conversation (conv_00000001) and her "hi" (msg_00000001). */
const { startSandbox } = require('./sandbox');

async function startAnnSaidHi() {
	const started = await startSandbox({ seed: 'none' });
	started.sandbox.store.addContact({ id: 'ct_ann' });
	started.sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	started.sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: 'hi' }); // msg_00000001
	started.sandbox.clearRequests();
	return started;
}

module.exports = { startAnnSaidHi };
