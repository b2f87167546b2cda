'use strict';
// The subtitle under the node's name, resolved by n8n's own expression code as the editor's canvas resolves it.
const { Workflow } = require('n8n-workflow');
const { nodeTypes } = require('../harness/n8n');
const { Messaging } = require('../../dist/nodes/Messaging/Messaging.node');

test('n8n resolves the subtitle to the chosen operation’s action sentence, for every operation', () => {
	const { description } = new Messaging();
	const resolved = [];
	const expected = [];
	for (const property of description.properties.filter((p) => p.name === 'operation')) {
		const resource = property.displayOptions.show.resource[0];
		for (const { value, action } of /** @type {import('n8n-workflow').INodePropertyOptions[]} */ (
			property.options
		)) {
			const workflow = new Workflow({
				id: 'w',
				nodes: [
					{
						id: '1',
						name: 'Node',
						type: 'n8n-nodes-messaging.messaging',
						typeVersion: 2,
						position: [0, 0],
						parameters: { resource, operation: value },
					},
				],
				connections: {},
				active: false,
				nodeTypes,
				settings: {},
			});
			const node = workflow.getNode('Node');
			let subtitle;
			try {
				subtitle = workflow.expression.getSimpleParameterValue(
					node,
					description.subtitle,
					'manual',
					{},
				);
			} catch (error) {
				subtitle = `error: ${error.message}`;
			}
			resolved.push([resource, value, subtitle]);
			expected.push([resource, value, action]);
		}
	}
	expect(resolved).toEqual(expected);
	expect(resolved).toHaveLength(22);
});
