'use strict';
const { openNode, addToMultiOptions, addCollectionOption, showField } = require('../browser');
const { expectPanel } = require('../panel');
const {
	triggerDescription,
	expectedPanel,
	expectedNested,
	collectionOptionNames,
} = require('../expected');
const { CREDENTIAL_ID, CREDENTIAL_NAME } = require('../env');

/**
 * The trigger's version 2 panel beyond New Message: Events Message Edited and Reaction Added chosen in
 * the list, and the Options of those events (Group Bursts with Quiet Period and Maximum Wait, Watch Window).
 */
module.exports = {
	title:
		'trigger version 2 panel: Events (Message Edited, Reaction Added) and Group Bursts (Quiet Period, Maximum Wait)',
	async run(t) {
		const { page, url } = t;
		const description = triggerDescription(2);
		const workflowId = await t.createWorkflow('UI: trigger events', [
			{
				id: 'trigger',
				name: 'Messaging Trigger',
				type: 'n8n-nodes-messaging.messagingTrigger',
				typeVersion: 2,
				position: [0, 0],
				parameters: {},
				credentials: { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			},
		]);
		await openNode(page, url, workflowId, 'trigger');
		const tags = await addToMultiOptions(page, 'events', ['Message Edited', 'Reaction Added']);
		t.log(`Events shows ${tags.join(', ')}`);
		const choices = { events: ['newMessage', 'messageEdited', 'reactionAdded'] };
		await expectPanel(t, 'trigger, three events', expectedPanel(description, choices));

		const options = {
			groupBursts: false,
			quietPeriod: 10,
			maxWait: 60,
			watchWindow: 20,
		};
		const labels = Object.keys(options).map(
			(name) =>
				description.properties
					.find((p) => p.name === 'options')
					.options.find((o) => o.name === name).displayName,
		);
		for (const [index, label] of labels.entries()) {
			const offered = await addCollectionOption(page, 'options', label);
			if (index > 0) continue;
			const wanted = collectionOptionNames(description, choices, 'options');
			t.expect(
				offered.join(' | ') === wanted.join(' | '),
				`Options offers ${offered.join(', ')} instead of ${wanted.join(', ')}`,
			);
		}
		await page
			.getByTestId('parameter-input-groupBursts')
			.locator('.el-switch, [role=switch]')
			.first()
			.click();
		await expectPanel(
			t,
			'trigger → Options',
			expectedNested(description, choices, 'options', { ...options, groupBursts: true }),
			{ within: 'options' },
		);
		await showField(page, 'watchWindow');
		await t.shot('events', 'Messaging Trigger 2: Events and Group Bursts');
	},
};
