'use strict';
const { chooseOption, visibleParameters, openNode } = require('../browser');
const { messagingDescription, expectedPanel, operations } = require('../expected');
const { CREDENTIAL_ID, CREDENTIAL_NAME } = require('../env');

const describeField = (f) => `${f.label}${f.required ? ' *' : ''} [${f.name}] = "${f.value}"`;
const sameValue = (expected, shown) =>
	expected.trim().toLowerCase() === String(shown).trim().toLowerCase();

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
			const wantedNames = expected.map((f) => f.name).join(',');
			// The panel re-renders after the choice, and a collection may still say "Loading fields...": wait
			// until it settles on the expected fields and values, or give up and compare.
			const shown = await t.settle(
				() => visibleParameters(page),
				(fields) =>
					fields.map((f) => f.name).join(',') === wantedNames &&
					expected.every(
						(want) =>
							want.name === '(notice)' ||
							sameValue(want.value, fields.find((f) => f.name === want.name)?.value ?? ''),
					),
				5_000,
			);
			const problems = [];
			const names = shown.map((f) => f.name).join(',');
			if (names !== wantedNames)
				problems.push(`fields ${names || '(none)'} instead of ${wantedNames}`);
			for (const want of expected) {
				const got = shown.find((f) => f.name === want.name);
				if (!got) continue;
				if (want.name === '(notice)') {
					if (got.label !== want.label)
						problems.push(`notice "${got.label}" instead of "${want.label}"`);
					continue;
				}
				if (got.label !== want.label)
					problems.push(`${want.name}: label "${got.label}" instead of "${want.label}"`);
				if (got.required !== want.required)
					problems.push(`${want.name}: ${want.required ? 'no' : 'a'} required mark`);
				if (!sameValue(want.value, got.value))
					problems.push(
						`${want.name}: shows "${got.value}" instead of the default "${want.value}"`,
					);
			}
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
