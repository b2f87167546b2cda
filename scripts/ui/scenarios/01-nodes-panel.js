'use strict';
const { messagingDescription, triggerDescription, operations } = require('../expected');

/** Sign in; a new workflow; "Messaging" in the nodes panel: both nodes with their icons, every action of both resources. */
module.exports = {
	title:
		'sign in, search "Messaging" in the nodes panel: both nodes with icons, the actions of both resources',
	async run(t) {
		const { page, url, session } = t;
		await page.goto(`${url}/signin`);
		await page
			.getByTestId('emailOrLdapLoginId')
			.locator('input')
			.or(page.locator('input[name=emailOrLdapLoginId]'))
			.first()
			.fill(session.owner.email);
		await page
			.getByTestId('password')
			.locator('input')
			.or(page.locator('input[name=password]'))
			.first()
			.fill(session.owner.password);
		await page.getByTestId('form-submit-button').click();
		await page.waitForURL((u) => !u.pathname.startsWith('/signin'));
		await page.getByTestId('main-sidebar-settings').waitFor();

		await page.goto(`${url}/workflow/new`);
		await page.getByTestId('node-creator-plus-button').click();
		await page.getByTestId('node-creator-search-bar').fill('Messaging');
		const entry = page.getByTestId('node-creator-item-name').filter({ hasText: /^Messaging$/ });
		await entry.first().waitFor();
		const found = await page.getByTestId('item-iterator-item').evaluateAll((els) =>
			els.map((e) => ({
				name: e.querySelector('[data-test-id=node-creator-item-name]')?.textContent.trim(),
				description: e
					.querySelector('[data-test-id=node-creator-item-description]')
					?.textContent.trim(),
				icon: e.querySelector('img')?.getAttribute('src'),
				iconWidth: e.querySelector('img')?.naturalWidth ?? 0,
			})),
		);
		t.log(`search "Messaging" lists: ${JSON.stringify(found)}`);
		const app = found.find((f) => f.name === 'Messaging');
		t.assert.ok(app, 'the nodes panel lists "Messaging"');
		t.expect(
			app.iconWidth > 0 && /\/icons\/n8n-nodes-messaging\//.test(app.icon),
			`the Messaging entry shows the package's icon (src ${app.icon}, width ${app.iconWidth})`,
		);
		await t.shot('search', 'nodes panel: search "Messaging"');

		// n8n lists a node and its trigger as one app; opening it shows the trigger and the actions.
		await entry.first().click();
		const categories = page.getByTestId('node-creator-category-item');
		await categories.first().waitFor();
		const collapsed = categories.filter({ hasText: /^Actions/ }).locator('xpath=..');
		if ((await collapsed.getAttribute('data-category-collapsed')) === 'true')
			await categories.filter({ hasText: /^Actions/ }).click();
		const trigger = triggerDescription();
		const actions = operations(messagingDescription());
		// n8n lists a trigger's `events` options as its actions ("On new message", …), else one action.
		const events = trigger.properties.find((p) => p.name === 'events')?.options ?? [];
		const triggerActions = events.map((e) => `On ${e.name.toLowerCase()}`);
		const wantedCount = actions.length + Math.max(1, triggerActions.length);
		const listed = await t.settle(
			() =>
				page
					.locator('[data-test-id=item-iterator-item][data-keyboard-nav-type=action]')
					.evaluateAll((els) =>
						els.map((e) => ({
							name: e.innerText.trim(),
							icon: e.querySelector('img')?.getAttribute('src'),
							iconWidth: e.querySelector('img')?.naturalWidth ?? 0,
						})),
					),
			(items) => items.length >= wantedCount && items.every((i) => i.iconWidth > 0),
		);
		const headers = await page
			.locator('[data-test-id=item-iterator-item]:not([data-keyboard-nav-type])')
			.allInnerTexts();
		t.log(
			`categories ${JSON.stringify(await categories.allInnerTexts())}, groups ${JSON.stringify(headers)}`,
		);

		const triggerItems = listed.filter((i) => /\/MessagingTrigger\//.test(i.icon ?? ''));
		t.expect(
			triggerItems.length === Math.max(1, triggerActions.length) &&
				triggerActions.every((name) => triggerItems.some((i) => i.name === name)),
			`the trigger's actions (${triggerActions.join(', ') || 'one'}) from ${trigger.displayName}, with its own icon: ${JSON.stringify(triggerItems)}`,
		);
		const names = listed.map((i) => i.name);
		for (const action of actions)
			t.expect(
				names.includes(action.action),
				`action "${action.action}" (${action.resourceName} → ${action.operationName}) is listed`,
			);
		t.expect(
			listed.length === wantedCount,
			`${wantedCount} actions listed (${actions.length} + the trigger's), got ${listed.length}: ${names.join(' | ')}`,
		);
		for (const resource of new Set(actions.map((a) => a.resourceName))) {
			t.expect(
				headers.some((h) => h.toLowerCase() === `${resource} actions`.toLowerCase()),
				`a "${resource} Actions" group is shown: ${headers.join(', ')}`,
			);
		}
		const blank = listed.filter((i) => !(i.iconWidth > 0));
		t.expect(blank.length === 0, `every action shows its icon; blank: ${JSON.stringify(blank)}`);
		await t.shot('actions', 'nodes panel: the Messaging app, trigger and actions');
		await page
			.getByTestId('node-creator-item-name')
			.filter({ hasText: /^Send a message$/ })
			.scrollIntoViewIfNeeded();
		await t.shot('actions-message', 'nodes panel: the message actions');
	},
};
