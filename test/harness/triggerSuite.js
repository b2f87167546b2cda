'use strict';
/**
 * The trigger guarantee suites' setting (trigger.test.js, triggerTime.test.js): Ann and Bob with a conversation
 * each, on a sandbox whose clock the test moves, and each trigger version's hooks.
 */
const { TRIGGER_FAKE_TIMERS } = require('./n8n');
const { startSandbox } = require('./sandbox');
const { triggerVersion } = require('./triggerVersions');

/** A sandbox telling time by `clock` (milliseconds), its `options` added, with conv_00000001 (Ann) and conv_00000002 (Bob). */
async function startTriggerSandbox(clock, options = {}) {
	const started = await startSandbox({ seed: 'none', clock, ...options });
	const { store } = started.sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_bob', username: 'bob' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.createConversation({ contact_id: 'ct_bob' }); // conv_00000002
	return started;
}

/** Helpers on the running test's sandbox (`current()`): a message written as a contact, the list requests made. */
function triggerHelpers(current) {
	/** @param {string} text @param {{ from?: string, conversation?: string, createdAt?: number }} [options] */
	const send = (text, { from = 'ct_ann', conversation = 'conv_00000001', createdAt } = {}) =>
		current().store.sendMessage(
			from,
			{ conversation_id: conversation, message: text },
			{ createdAt },
		);
	const messageRequests = () =>
		current()
			.requests.filter((r) => r.path === '/v1/messages')
			.map((r) => r.query);
	return { send, messageRequests };
}

const texts = (result) => (result ? result[0].map((item) => item.json.message) : []);

/**
 * Inside a version's describe: version 2 on n8n's fake timers, every trigger made stopped after each test, then
 * the sandbox (`stopSandbox`). Returns the trigger maker.
 */
function versionHooks(version, stopSandbox) {
	let triggers = [];
	beforeEach(async () => {
		if (version === triggerVersion) {
			jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
		}
	});
	afterEach(async () => {
		for (const trigger of triggers) await trigger.stop();
		triggers = [];
		jest.useRealTimers();
		await stopSandbox();
	});
	return (options) => {
		const trigger = version(options);
		triggers.push(trigger);
		return trigger;
	};
}

module.exports = { startTriggerSandbox, triggerHelpers, texts, versionHooks };
