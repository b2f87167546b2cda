'use strict';
/**
 * Send and Wait for Reply's Only From Contact, through n8n-core's WorkflowExecute against the sandbox: an entry
 * is a contact ID, matched by ID only, or @ and a username, as Approvers are (docs/human-in-the-loop.md). A
 * contact chooses its username, so one named after another's ID must not pass for it.
 */
const { runMessagingNode, startMessagingRun } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');

let sandbox;
let credentials;
let store;
const INBOX = 'conv_00000001';

beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	store = sandbox.store;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_eve', username: 'ct_ann' }); // a username that reads as ann's ID
	store.createConversation({ contact_id: 'ct_ann' }); // INBOX
	store.sendMessage('ct_ann', { conversation_id: INBOX, message: 'earlier' }, { createdAt: 1 });
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const question = 'Ship the order?';
const parameters = (fromContact, extra = {}) => ({
	resource: 'message',
	operation: 'sendAndWaitForReply',
	conversationId: byId(INBOX),
	message: question,
	replyTimeout: 5,
	checkInterval: 0.05,
	options: { fromContact },
	...extra,
});
const checks = () =>
	sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v1/messages').length;
const say = (who, message) => store.sendMessage(who, { conversation_id: INBOX, message });

/** Runs the node; once the question is sent and checked, `eve` answers, and after another check ann. */
async function eveThenAnn(fromContact, extra) {
	const run = startMessagingRun({ parameters: parameters(fromContact, extra), credentials });
	const asked = () => [...store.messages.values()].some((m) => m.message === question);
	const until = async (done) => {
		for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
	};
	await until(() => asked() && checks() >= 1);
	say('ct_eve', 'yes, ship it');
	const seen = checks();
	await until(() => checks() >= seen + 2);
	say('ct_ann', 'no, hold it');
	return await run.done;
}

test.each([['ct_ann'], ['@ann']])(
	'Only From Contact %s: the contact whose username is "ct_ann" is not ann; ann\'s message is the reply',
	async (fromContact) => {
		const { items, error } = await eveThenAnn(fromContact);
		expect(error).toBeUndefined();
		expect(items[0].json.reply).toMatchObject({
			message: 'no, hold it',
			contact: { id: 'ct_ann', username: 'ann' },
		});
	},
);

test('@ct_ann names the username: eve, who chose it, is the reply', async () => {
	const { items } = await eveThenAnn('@ct_ann');
	expect(items[0].json.reply).toMatchObject({ message: 'yes, ship it', contact: { id: 'ct_eve' } });
});

test('a username without @ is read as an ID and matches nobody: the wait times out', async () => {
	const { items, error } = await eveThenAnn('ann', { replyTimeout: 1 });
	expect(error).toBeUndefined();
	expect(items[0].json).toMatchObject({ reply: null, timedOut: true });
});

test('"@" alone is an error naming the field, before anything is sent', async () => {
	const { error } = await runMessagingNode({ parameters: parameters('@'), credentials });
	expect(error.message).toBe('Only From Contact has "@" without a username after it');
	expect(sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
});
