'use strict';
const { openNode, visibleParameters } = require('../browser');
const { triggerDescription, expectedPanel } = require('../expected');
const { CREDENTIAL_ID, CREDENTIAL_NAME, newestFirst } = require('../env');

const trigger = (parameters) => ({
	id: 'trigger',
	name: 'Messaging Trigger',
	type: 'n8n-nodes-messaging.messagingTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters,
	credentials: { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
});

/** Fetch Test Event: the newest message; with no message, the product's text. */
module.exports = {
	title: 'trigger: Fetch Test Event shows the newest message; with no messages, the product’s text',
	async run(t) {
		const { page, url, sandbox, extraConversations } = t;
		const output = page.getByTestId('output-panel');
		const anyId = await t.createWorkflow('UI: trigger', [trigger({})]);
		await openNode(page, url, anyId, 'trigger');
		// n8n adds Poll Times to every polling trigger; the rest comes from the description.
		const expected = ['pollTimes', ...expectedPanel(triggerDescription(1), {}).map((f) => f.name)];
		const shown = (await visibleParameters(page)).map((f) => f.name);
		t.expect(
			shown.join(',') === expected.join(','),
			`trigger fields ${shown.join(', ')} instead of ${expected.join(', ')}`,
		);
		const button = page.getByTestId('node-execute-button');
		t.expect(
			/Fetch Test Event/i.test(await button.innerText()),
			`the button reads "Fetch Test Event": "${await button.innerText()}"`,
		);
		await button.click();
		const [newest] = newestFirst(sandbox.store.listMessages({}));
		await output.getByText(newest.id).first().waitFor();
		const text = await output.innerText();
		t.expect(
			text.includes(newest.message.slice(0, 30)),
			`the output shows the newest message "${newest.message}"`,
		);
		t.expect(/1 item/.test(text), `exactly one item: ${text.slice(0, 120)}`);
		await t.shot('newest', 'Messaging Trigger: Fetch Test Event, the newest message');

		const empty = extraConversations[extraConversations.length - 1];
		t.assert.equal(sandbox.store.listMessages({ conversation_id: empty }).length, 0);
		const emptyId = await t.createWorkflow('UI: trigger, empty conversation', [
			trigger({ conversationId: { __rl: true, mode: 'id', value: empty } }),
		]);
		await openNode(page, url, emptyId, 'trigger');
		await page.getByTestId('node-execute-button').click();
		await page
			.getByText(/There are no messages/)
			.first()
			.waitFor();
		const message = await page
			.getByText(/There are no messages/)
			.first()
			.innerText();
		t.log(`empty conversation: "${message}"`);
		// The manual run is over: the panel goes back from "Stop Listening" to "Fetch Test Event".
		const label = await t.settle(
			() => page.getByTestId('node-execute-button').innerText(),
			(text) => /Fetch Test Event/i.test(text),
			10_000,
		);
		t.expect(
			/Fetch Test Event/i.test(label),
			`after the error the panel stops listening; its button still reads "${label}"`,
		);
		t.expect(message.includes('There are no messages'), 'the product’s text for no messages shows');
		await t.shot('no-messages', 'Messaging Trigger: Fetch Test Event with no messages');
	},
};
