'use strict';
const { chooseOption, openNode } = require('../browser');
const { panelProblems, describeField } = require('../panel');
const { messagingDescription, expectedPanel, operations } = require('../expected');
const { CREDENTIAL_ID, CREDENTIAL_NAME } = require('../env');

/**
 * For every operation of both resources, chosen in the panel as a person does: exactly the fields of
 * the compiled description (names, order, labels, required marks, defaults) and no field of another one.
 */
module.exports = {
	title:
		'every operation of both resources: the panel shows exactly its fields (labels, required marks, defaults)',
	async run(t) {
		const { page, url } = t;
		const workflowId = await t.createWorkflow(
			'UI: fields of every operation',
			[
				{
					id: 'start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'messaging',
					name: 'Messaging',
					type: 'n8n-nodes-messaging.messaging',
					// The version a node gets when added today, whose panel expected.js derives.
					typeVersion: 2,
					position: [240, 0],
					parameters: {},
					credentials: { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				},
			],
			{ Start: { main: [[{ node: 'Messaging', type: 'main', index: 0 }]] } },
		);
		await openNode(page, url, workflowId, 'messaging');
		const description = messagingDescription();
		const pairs = operations(description);
		const mismatches = [];
		for (const pair of pairs) {
			await chooseOption(page, 'resource', pair.resourceName);
			await chooseOption(page, 'operation', pair.operationName);
			const expected = expectedPanel(description, {
				resource: pair.resource,
				operation: pair.operation,
			});
			const { shown, problems } = await panelProblems(page, expected);
			const where = `${pair.resourceName} → ${pair.operationName}`;
			if (problems.length) mismatches.push(`${where}: ${problems.join('; ')}`);
			t.log(
				`${problems.length ? 'MISMATCH' : 'ok'} ${where}: ${shown.map(describeField).join(' | ')}`,
			);
			await t.shot(`${pair.resource}-${pair.operation}`, `fields: ${where}`);
		}
		t.assert.equal(pairs.length > 0, true);
		t.assert.deepEqual(
			mismatches,
			[],
			`panels that differ from the node description:\n${mismatches.join('\n')}`,
		);
	},
};
