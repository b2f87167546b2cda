'use strict';
const { openNode } = require('../browser');
const { CREDENTIAL_ID, CREDENTIAL_NAME, newestFirst } = require('../env');

const node = (id, name, position, parameters) => ({
	id,
	name,
	type: 'n8n-nodes-messaging.messaging',
	typeVersion: 1,
	position,
	parameters,
	credentials: { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
});
const byId = (value) => ({ __rl: true, mode: 'id', value });

/** Execute step in the editor: the output pane shows the items; an unknown id shows the service's text and no token. */
module.exports = {
	title:
		'execute from the editor: Send and Get Many show their items (and the limit hint); Get of an unknown id shows the service’s text, no token',
	async run(t) {
		const { page, url, sandbox, token } = t;
		const conversation = 'conv_00000005';
		const text = `Hello from the editor ${Date.now()}`;
		const workflowId = await t.createWorkflow(
			'UI: execute',
			[
				{
					id: 'start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				node('send', 'Send', [240, -200], {
					resource: 'message',
					operation: 'send',
					conversationId: byId(conversation),
					text,
				}),
				node('getmany', 'Get Many', [240, 0], {
					resource: 'message',
					operation: 'getAll',
					limit: 2,
					filters: { conversationId: byId(conversation) },
				}),
				node('getmissing', 'Get Missing', [240, 200], {
					resource: 'message',
					operation: 'get',
					messageId: byId('msg_missing_ui'),
				}),
			],
			{
				Start: {
					main: [
						[
							{ node: 'Send', type: 'main', index: 0 },
							{ node: 'Get Many', type: 'main', index: 0 },
							{ node: 'Get Missing', type: 'main', index: 0 },
						],
					],
				},
			},
		);
		const output = page.getByTestId('output-panel');

		await openNode(page, url, workflowId, 'send');
		await page.getByTestId('node-execute-button').click();
		await output.getByText(text).first().waitFor();
		const stored = sandbox.store
			.listMessages({ conversation_id: conversation })
			.find((m) => m.message === text);
		t.assert.ok(stored, 'the message reached the service');
		const sendOutput = await output.innerText();
		t.expect(
			sendOutput.includes(stored.id),
			`the output pane shows the new message's id ${stored.id}`,
		);
		t.expect(
			/1 item/.test(sendOutput),
			`the output pane says "1 item": ${sendOutput.slice(0, 200)}`,
		);
		await t.shot('send', 'Execute step: Send, the output pane');

		await openNode(page, url, workflowId, 'getmany');
		await page.getByTestId('node-execute-button').click();
		await output
			.getByText(/2 items/)
			.first()
			.waitFor();
		const newest = newestFirst(sandbox.store.listMessages({ conversation_id: conversation })).slice(
			0,
			2,
		);
		const manyOutput = await t.settle(
			() => output.innerText(),
			(shown) => newest.every((m) => shown.includes(m.id)),
		);
		for (const m of newest)
			t.expect(manyOutput.includes(m.id), `Get Many shows ${m.id} (one of the 2 newest)`);
		const hint = 'More messages exist than the limit of 2';
		const hintShown = await page
			.getByText(hint)
			.first()
			.waitFor({ state: 'visible', timeout: 5_000 })
			.then(
				() => true,
				() => false,
			);
		t.expect(hintShown, `the hint "${hint} …" shows`);
		await t.shot('get-many', 'Execute step: Get Many with Limit 2, items and hint');

		await openNode(page, url, workflowId, 'getmissing');
		await page.getByTestId('node-execute-button').click();
		const serviceText = 'No such message: msg_missing_ui';
		await output.getByText(serviceText).first().waitFor();
		const errorText = await output.innerText();
		t.log(`error pane: ${errorText.replace(/\s+/g, ' ').slice(0, 300)}`);
		t.expect(/Not found/.test(errorText), 'the error names the failure ("Not found")');
		const html = await page.content();
		t.expect(!html.includes(token), 'the page does not contain the access token');
		await t.shot('get-unknown', 'Execute step: Get of an unknown id, the error');
	},
};
