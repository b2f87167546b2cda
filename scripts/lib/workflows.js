'use strict';
const crypto = require('node:crypto');
/** Workflows built as n8n stores them (what `n8n import:workflow` reads), and reading a run's output. */

/** A resource locator set "By ID", as the editor stores it. */
const byId = (value) => ({ __rl: true, mode: 'id', value });

/** The node a workflow run by `n8n execute` has to start with. */
const manualTrigger = () => ({
	id: 'start',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	parameters: {},
});

/**
 * A straight chain: `nodes[0]` starts it (a trigger), each node feeds the next. A node needs `name`,
 * `type` and `parameters`; `id`, `typeVersion` (1) and `position` are filled in when missing.
 */
function chainWorkflow({ id, name = id, nodes }) {
	const placed = nodes.map((node, index) => ({
		id: `n${index}`,
		typeVersion: 1,
		position: [220 * index, 0],
		...node,
	}));
	const connections = {};
	for (let i = 1; i < placed.length; i++) {
		connections[placed[i - 1].name] = {
			main: [[{ node: placed[i].name, type: 'main', index: 0 }]],
		};
	}
	return {
		id,
		name,
		// n8n 2.0.x refuses to import a workflow without one (later versions make one up).
		versionId: crypto.randomUUID(),
		nodes: placed,
		connections,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** The items a node output in its first run (`n8n execute --rawOutput`'s JSON), as plain JSON. */
const runItems = (run, nodeName) =>
	run?.data?.resultData?.runData?.[nodeName]?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];

module.exports = { byId, manualTrigger, chainWorkflow, runItems };
