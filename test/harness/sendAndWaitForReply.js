'use strict';
/**
 * Send and Wait for Reply's test setting: the sandbox with Ann and Bob, a conversation with each (INBOX, OTHER)
 * and some history in INBOX, the node asking its question there through n8n-core, and replies written into the
 * sandbox's store while the node waits, as another account would.
 */
const { startMessagingRun } = require('./n8n');
const { startSandbox, byId } = require('./sandbox');

const INBOX = 'conv_00000001';
const OTHER = 'conv_00000002';
const sentText = 'Which size, S or M?';

async function startReplyInbox() {
	const { sandbox, credentials } = await startSandbox({ seed: 'none' });
	const store = sandbox.store;
	for (const id of ['ct_ann', 'ct_bob']) store.addContact({ id, username: id.slice(3) });
	store.createConversation({ contact_id: 'ct_ann' }); // INBOX
	store.createConversation({ contact_id: 'ct_bob' }); // OTHER
	// History from earlier, so the list order shows in the conversation's own page.
	store.sendMessage(
		'ct_ann',
		{ conversation_id: INBOX, message: 'earlier' },
		{ createdAt: 1_700_000_000 },
	);
	store.sendMessage(
		'ct_me',
		{ conversation_id: INBOX, message: 'earlier too' },
		{ createdAt: 1_700_000_001 },
	);
	sandbox.clearRequests();
	return { sandbox, credentials, store };
}

const parameters = (extra = {}) => ({
	resource: 'message',
	operation: 'sendAndWaitForReply',
	conversationId: byId(INBOX),
	message: 'Which size, S or M?',
	replyTimeout: 5,
	checkInterval: 0.05,
	...extra,
});

/** Helpers on the running test's sandbox: `current()` gives its `{ sandbox, credentials, store }`. */
function replyHelpers(current) {
	const sentMessage = () =>
		[...current().store.messages.values()].find((m) => m.message === sentText);
	const checks = () =>
		current().sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/messages');

	/** Calls `write` once the question is in the conversation and the node has checked at least `afterChecks` times. */
	async function whenAsked(write, afterChecks = 1) {
		for (let i = 0; i < 400; i++) {
			if (sentMessage() && checks().length >= afterChecks) return write(sentMessage());
			await new Promise((r) => setTimeout(r, 5));
		}
		throw new Error('the question was never sent');
	}

	async function ask(extra, write, afterChecks) {
		const run = startMessagingRun({
			parameters: parameters(extra),
			credentials: current().credentials,
		});
		if (write) await whenAsked(write, afterChecks);
		return await run.done;
	}
	return { sentMessage, checks, whenAsked, ask };
}

module.exports = { INBOX, OTHER, sentText, startReplyInbox, parameters, replyHelpers };
