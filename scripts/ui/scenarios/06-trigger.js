'use strict';
const { openNode, visibleParameters } = require('../browser');
const { expectPanel } = require('../panel');
const { triggerDescription, expectedPanel } = require('../expected');
const { CREDENTIAL_ID, CREDENTIAL_NAME, newestFirst } = require('../env');

const trigger = (parameters, typeVersion = 2) => ({
	id: 'trigger',
	name: 'Messaging Trigger',
	type: 'n8n-nodes-messaging.messagingTrigger',
	typeVersion,
	position: [0, 0],
	parameters,
	credentials: { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
});

/**
 * The trigger as new nodes get it (version 2): its fields, and its test run from the panel shows the
 * newest message, or the product's text with no messages. A version 1 node still opens as before.
 */
module.exports = {
	title:
		'trigger version 2: its fields; a test run shows the newest message, with none the product’s text; version 1 still opens',
	async run(t) {
		const { page, url, sandbox, extraConversations } = t;
		const output = page.getByTestId('output-panel');
		const anyId = await t.createWorkflow('UI: trigger', [trigger({})]);
		await openNode(page, url, anyId, 'trigger');
		await expectPanel(t, 'trigger version 2', expectedPanel(triggerDescription(2), {}));
		const button = page.getByTestId('node-execute-button');
		const idle = (await button.innerText()).trim();
		t.log(`the panel's run button reads "${idle}"`);
		await button.click();
		const [newest] = newestFirst(sandbox.store.listMessages({}));
		await output.getByText(newest.id).first().waitFor();
		const text = await output.innerText();
		t.expect(
			text.includes(newest.message.slice(0, 30)),
			`the output shows the newest message "${newest.message}"`,
		);
		t.expect(/1 item/.test(text), `exactly one item: ${text.slice(0, 120)}`);
		await t.shot('newest', 'Messaging Trigger 2: test run, the newest message');

		const empty = extraConversations[extraConversations.length - 1];
		t.assert.equal(sandbox.store.listMessages({ conversation_id: empty }).length, 0);
		const emptyId = await t.createWorkflow('UI: trigger, empty conversation', [
			trigger({ conversationId: { __rl: true, mode: 'id', value: empty } }),
		]);
		await openNode(page, url, emptyId, 'trigger');
		await page.getByTestId('node-execute-button').click();
		const noMessages = page.getByText(/There are no messages/).first();
		await noMessages.waitFor();
		const message = await noMessages.innerText();
		t.log(`empty conversation: "${message}"`);
		// The test run is over: the panel stops listening and its button reads as before.
		const label = await t.settle(
			async () => (await page.getByTestId('node-execute-button').innerText()).trim(),
			(shown) => shown === idle,
			10_000,
		);
		t.expect(
			label === idle,
			`after the error the panel stops listening; its button reads "${label}"`,
		);
		t.expect(message.includes('There are no messages'), 'the product’s text for no messages shows');
		await t.shot('no-messages', 'Messaging Trigger 2: test run with no messages');

		// Workflows built on version 1 keep it: n8n's polling fields and Fetch Test Event.
		const v1Id = await t.createWorkflow('UI: trigger version 1', [trigger({}, 1)]);
		await openNode(page, url, v1Id, 'trigger');
		// n8n adds Poll Times to every polling trigger; the rest comes from the description.
		const expected = ['pollTimes', ...expectedPanel(triggerDescription(1), {}).map((f) => f.name)];
		const shown = (await visibleParameters(page)).map((f) => f.name);
		t.expect(
			shown.join(',') === expected.join(','),
			`trigger 1 fields ${shown.join(', ')} instead of ${expected.join(', ')}`,
		);
		const v1Button = await page.getByTestId('node-execute-button').innerText();
		t.expect(/Fetch Test Event/i.test(v1Button), `version 1's button reads "${v1Button}"`);
		await t.shot('version-1', 'Messaging Trigger 1 (existing workflows): Poll Times');
	},
};
