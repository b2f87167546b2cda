'use strict';
/**
 * Send and Wait for Response's test setting: the sandbox with Ann and one conversation with her (INBOX),
 * the node parked on it through n8n-core, and the signed links of its request message.
 */
// n8n-core's own copy of the DI container, where it registered its InstanceSettings.
const { Container } = require(require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }));
const { InstanceSettings, validateUrlSignature } = require('n8n-core');
const { startMessagingRun } = require('./n8n');
const { startSandbox, byId } = require('./sandbox');

const INBOX = 'conv_00000001';
const NODE_ID = '8d1e0c52-1f4b-4a8e-9c57-2f9a4b7d1e01';

async function startInbox() {
	const { sandbox, credentials } = await startSandbox({ seed: 'none' });
	const store = sandbox.store;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.createConversation({ contact_id: 'ct_ann' });
	sandbox.clearRequests();
	return { sandbox, credentials, store };
}

const parameters = (extra = {}) => ({
	resource: 'message',
	operation: 'sendAndWait',
	conversationId: byId(INBOX),
	message: 'Archive the conversation with Ann?',
	...extra,
});

/** Helpers on the running test's sandbox: `current()` gives its `{ credentials, store }`. */
function inboxHelpers(current) {
	return {
		park: async (extra, input) =>
			await startMessagingRun({
				parameters: parameters(extra),
				input,
				credentials: current().credentials,
				nodeId: NODE_ID,
			}).done,
		requestText: () =>
			current()
				.store.listMessages({ conversation_id: INBOX })
				.map((m) => m.message),
	};
}

const linkIn = (text, label) => new URL(new RegExp(`^${label}: (\\S+)$`, 'm').exec(text)[1]);
const pathAndQuery = (url) => url.pathname + url.search;
const signatureIsValid = (url) =>
	validateUrlSignature(
		url.searchParams.get('signature'),
		url,
		Container.get(InstanceSettings).hmacSignatureSecret,
	);

module.exports = {
	INBOX,
	NODE_ID,
	startInbox,
	parameters,
	inboxHelpers,
	linkIn,
	pathAndQuery,
	signatureIsValid,
};
