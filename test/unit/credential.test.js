'use strict';
const { MessagingApi } = require('../../dist/credentials/MessagingApi.credentials');

describe('credential authenticate', () => {
	// n8n calls it unbound, as CredentialsHelper.authenticate does.
	const { authenticate } = new MessagingApi();

	test('adds the bearer header and keeps the request and its other headers', async () => {
		/** @type {import('n8n-workflow').IHttpRequestOptions} */
		const request = {
			method: 'PUT',
			url: 'http://h/v1/conversations/c1',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: 'is_muted=true',
		};
		const sent = await authenticate({ baseUrl: 'http://h', accessToken: 'tok-123' }, request);
		expect(sent).toEqual({
			...request,
			headers: {
				'content-type': 'application/x-www-form-urlencoded',
				Authorization: 'Bearer tok-123',
			},
		});
		expect(request.headers).toEqual({ 'content-type': 'application/x-www-form-urlencoded' }); // the caller's object is untouched
	});

	test('a token pasted with surrounding whitespace or a newline is sent trimmed', async () => {
		const sent = await authenticate(
			{ baseUrl: 'http://h', accessToken: '  tok-123\n' },
			{ url: 'http://h/v1/messages' },
		);
		expect(sent.headers).toEqual({ Authorization: 'Bearer tok-123' });
	});
	test('a Base URL with a user name and password, a query or a fragment is refused, without echoing it', async () => {
		for (const baseUrl of [
			'https://bob:hunter22@h.example',
			'https://h.example/api?key=1',
			'https://h.example/#x',
		]) {
			const refused = authenticate(
				{ baseUrl, accessToken: 'tok' },
				{ url: `${baseUrl}/v1/conversations` },
			);
			await expect(refused).rejects.toThrow(/The Base URL must not contain/);
			await refused.catch((error) => expect(error.message).not.toContain('hunter22'));
		}
	});
});

describe('Messaging node description', () => {
	const { Messaging } = require('../../dist/nodes/Messaging/Messaging.node.js');
	test('the subtitle names each operation by its action sentence, for every operation', () => {
		const { description } = new Messaging();
		const map = JSON.parse(/^=\{\{ (\{.*\})\[\$parameter/s.exec(description.subtitle)[1]);
		for (const property of description.properties.filter((p) => p.name === 'operation')) {
			const resource = /** @type {string} */ (property.displayOptions.show.resource[0]);
			const options = /** @type {import('n8n-workflow').INodePropertyOptions[]} */ (
				property.options
			);
			for (const option of options)
				expect(map[resource][/** @type {string} */ (option.value)]).toBe(option.action);
			expect(Object.keys(map[resource]).sort()).toEqual(options.map((o) => o.value).sort());
		}
	});
});
