'use strict';

/** The credential created in the UI: Base URL with a trailing /v1; Test succeeds; a wrong token gets the product's text. */
module.exports = {
	title:
		'credential in the UI: Base URL ending in /v1 tests fine; a wrong token shows the product’s failure text',
	async run(t) {
		const { page, url, sandbox, token } = t;
		await page.goto(`${url}/home/credentials`);
		await page.getByTestId('add-resource-credential').click();
		await page.getByTestId('new-credential-type-select').locator('input').fill('Messaging');
		await page
			.getByTestId('new-credential-type-select-option')
			.filter({ hasText: 'Messaging API' })
			.click();
		await page.getByTestId('new-credential-type-button').click();
		const dialog = page.getByTestId('credential-edit-dialog');
		await dialog.waitFor();
		await t.shot('empty', 'credential: the empty form');

		await dialog.getByTestId('parameter-input-baseUrl').locator('input').fill(`${sandbox.url}/v1`);
		await dialog.getByTestId('parameter-input-accessToken').locator('input').fill(token);
		sandbox.clearRequests();
		await page.getByTestId('credential-save-button').click();
		const success = dialog.getByTestId('credentials-config-container-test-success');
		await success.waitFor({ state: 'visible' });
		t.assert.match(await success.innerText(), /Connection tested successfully/);
		const tests = sandbox.requests.filter(
			(r) => r.path === '/v1/conversations' && /limit=1/.test(r.query),
		);
		t.expect(
			tests.length > 0,
			`the Test reached the sandbox at /v1/conversations?limit=1 (not /v1/v1): ${JSON.stringify(sandbox.requests.map((r) => r.path))}`,
		);
		await t.shot('tested', 'credential: Base URL …/v1, Test: success');

		const wrongToken = 'wrong-token-ui-9f2';
		await dialog.getByTestId('parameter-input-accessToken').locator('input').fill(wrongToken);
		await page.getByTestId('credential-save-button').click();
		const failureText = 'Authentication failed: the service did not accept this access token';
		// n8n shows "Couldn't connect with these settings" and the service's reason behind "More details".
		await dialog.getByText(/Couldn.t connect with these settings/).waitFor({ state: 'visible' });
		await dialog.getByText('More details').click();
		await dialog.getByText(failureText).first().waitFor({ state: 'visible' });
		t.expect(await success.isHidden(), 'the success banner is gone after the failed test');
		const text = await dialog.innerText();
		t.expect(
			!text.includes(wrongToken) && !text.includes(token),
			'the dialog does not show the token',
		);
		await t.shot('wrong-token', 'credential: wrong token, the product’s failure text');
		await page.keyboard.press('Escape');
	},
};
