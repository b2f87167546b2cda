'use strict';
/**
 * Version 2 (trigger()) through n8n-core's TriggerContext in a simulated n8n (test/harness/n8n.js):
 * the schedule, deliveries settled by donePromise, redelivery of lost executions, restarts.
 */
const { createTriggerHost, fetchTestEvent } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');

let sandbox;
let credentials;
let now; // the service's clock, in milliseconds
let host;

async function setup(options = {}) {
	now = Math.floor(Date.now() / 1000) * 1000;
	({ sandbox, credentials } = await startSandbox({ seed: 'none', clock: () => now, ...options }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_bob', username: 'bob' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.createConversation({ contact_id: 'ct_bob' }); // conv_00000002
}

beforeEach(async () => {
	jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'performance', 'hrtime'] });
	await setup();
});
afterEach(async () => {
	if (host?.process) await host.stop();
	host = undefined;
	jest.useRealTimers();
	await sandbox.stop();
});

const send = (text, { from = 'ct_ann', conversation = 'conv_00000001', createdAt } = {}) =>
	sandbox.store.sendMessage(from, { conversation_id: conversation, message: text }, { createdAt });
const texts = (jsons) => jsons.map((json) => json.message);
const advanceServiceClock = (seconds = 1) => {
	now += seconds * 1000;
};
const every = (interval, unit = 'seconds', options = {}) => ({ interval, unit, options });

describe('Messaging Trigger v2: schedule', () => {
	test('checks every 5 seconds, one request per check with nothing new, never two checks at once', async () => {
		send('old');
		host = await createTriggerHost({ credentials, parameters: every(5) }).start();
		expect(host.executions).toHaveLength(0); // activation notes where the stream stands
		sandbox.clearRequests();
		const gaps = [];
		for (let i = 0; i < 4; i++) gaps.push(await host.tick());
		expect(gaps).toEqual([5000, 5000, 5000, 5000]);
		expect(sandbox.requests.map((r) => r.method + ' ' + r.path)).toEqual(Array(4).fill('GET /v1/messages'));
		expect(sandbox.stats.peakInFlight).toBe(1);
	});
});
