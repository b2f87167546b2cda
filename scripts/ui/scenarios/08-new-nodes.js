'use strict';
const { settle } = require('../browser');
const { expectPanel } = require('../panel');
const {
	messagingDescription,
	triggerDescription,
	expectedPanel,
	operations,
} = require('../expected');
const { ROOT } = require('../../lib/n8n');

/** The version n8n gives a new node: the node's defaultVersion (the trigger is a versioned node). */
function newestVersions() {
	const path = require('node:path');
	const load = (file, name) => new (require(path.join(ROOT, 'dist', file))[name])();
	const trigger = load('nodes/MessagingTrigger/MessagingTrigger.node.js', 'MessagingTrigger');
	const messaging = load('nodes/Messaging/Messaging.node.js', 'Messaging');
	return {
		trigger: trigger.description.defaultVersion,
		messaging: messaging.description.defaultVersion,
	};
}

/** Picks an action of the Messaging app in the open nodes panel; its node is added and its panel opens. */
async function dropAction(page, action) {
	await page.getByTestId('node-creator-search-bar').fill('Messaging');
	await page
		.getByTestId('node-creator-item-name')
		.filter({ hasText: /^Messaging$/ })
		.first()
		.click();
	await page
		.getByTestId('node-creator-item-name')
		.filter({ hasText: new RegExp(`^${action}$`) })
		.first()
		.click();
	await page.getByTestId('node-parameters').waitFor();
}

/** The version the panel's Settings tab states ("Messaging node version 2 (Latest)"). */
async function shownVersion(page, displayName) {
	await page.getByTestId('tab-settings').click();
	const line = page.getByText(new RegExp(`^${displayName} node version \\d+`)).first();
	await line.waitFor();
	const text = (await line.innerText()).trim();
	await page.getByTestId('tab-params').click();
	return text;
}

/**
 * Both nodes as a person adds them, from the nodes panel: the trigger by "On new message", then the
 * Messaging node by "Send a message" from the trigger's output. Each is the newest version and its
 * panel shows that version's fields with their defaults; Check Every keeps to its 5 s minimum.
 */
module.exports = {
	title:
		'nodes as dropped from the nodes panel: the newest versions (trigger 2, Messaging 2) and their fields',
	async run(t) {
		const { page, url } = t;
		const newest = newestVersions();
		t.assert.deepEqual(newest, { trigger: 2, messaging: 2 }, 'the versions new nodes get');

		await page.goto(`${url}/workflow/new`);
		await page.getByTestId('node-creator-plus-button').click();
		await dropAction(page, 'On new message');
		const triggerVersion = await shownVersion(page, 'Messaging Trigger');
		t.expect(
			triggerVersion.startsWith(`Messaging Trigger node version ${newest.trigger}`),
			`the dropped trigger is version ${newest.trigger}: "${triggerVersion}"`,
		);
		// "On new message" sets Events to New Message; the rest is at its defaults.
		await expectPanel(
			t,
			'the dropped trigger',
			expectedPanel(triggerDescription(newest.trigger), { events: ['newMessage'] }),
			{ requiredMarks: false },
		);
		const checkEvery = page.getByTestId('parameter-input-interval').locator('input');
		t.expect(
			(await checkEvery.getAttribute('aria-valuemin')) === '5',
			`Check Every's minimum is 5: aria-valuemin="${await checkEvery.getAttribute('aria-valuemin')}"`,
		);
		await t.shot('trigger', `dropped: Messaging Trigger, ${triggerVersion}`);
		await checkEvery.fill('1');
		await checkEvery.press('Tab');
		const raised = await settle(
			() => checkEvery.inputValue(),
			(v) => v === '5',
		);
		t.expect(
			raised === '5',
			`Check Every 1 is shown as the minimum 5 once left, shows "${raised}"`,
		);
		await t.shot('check-every', 'dropped trigger: Check Every 1 becomes 5');
		await page.getByTestId('ndv-close-button').click();

		// From the trigger's output "+", as a person continues the workflow.
		await page.getByTestId('canvas-handle-plus').first().click();
		await dropAction(page, 'Send a message');
		const messagingVersion = await shownVersion(page, 'Messaging');
		t.expect(
			messagingVersion.startsWith(`Messaging node version ${newest.messaging}`),
			`the dropped Messaging node is version ${newest.messaging}: "${messagingVersion}"`,
		);
		const send = operations(messagingDescription()).find((o) => o.action === 'Send a message');
		await expectPanel(
			t,
			'the dropped Messaging node',
			expectedPanel(messagingDescription(), { resource: send.resource, operation: send.operation }),
			{ requiredMarks: false },
		);
		await t.shot('messaging', `dropped: Messaging "Send a message", ${messagingVersion}`);

		// What n8n saved for the two nodes.
		const workflowId = new URL(page.url()).pathname.split('/')[2];
		const saved = await settle(
			async () => (await t.session.rest('GET', `/workflows/${workflowId}`)).body?.data?.nodes ?? [],
			(nodes) => nodes.length === 2,
			10_000,
		);
		const versions = Object.fromEntries(saved.map((n) => [n.type.split('.')[1], n.typeVersion]));
		t.log(`saved nodes: ${JSON.stringify(versions)}`);
		t.expect(
			versions.messagingTrigger === newest.trigger && versions.messaging === newest.messaging,
			`the saved workflow holds trigger ${newest.trigger} and Messaging ${newest.messaging}: ${JSON.stringify(versions)}`,
		);
		await page.getByTestId('ndv-close-button').click();
	},
};
