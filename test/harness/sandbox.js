'use strict';
const { createSandbox } = require('../../sandbox/server');
const { byId } = require('../../scripts/lib/workflows');

const TOKEN = 'test-token-5f1c9a';
/** A password tests put into a Base URL's user info: like the token, it must never show in any output. */
const BASE_URL_PASSWORD = 'pw-7c2e91';

/** A sandbox on a free loopback port, with credentials that point at it (a trailing /v1/, as users paste). */
async function startSandbox(options = {}) {
	const sandbox = await createSandbox({ tokens: { [TOKEN]: 'ct_me' }, ...options }).start();
	const credentials = {
		baseUrl: `${sandbox.url}/v1/`,
		accessToken: TOKEN,
		timestampUnit: 'auto',
		ownContactId: '',
		...options.credentials,
	};
	return { sandbox, credentials };
}

/** The requests that reached the sandbox, as method, path+query and body bytes. */
const wire = (sandbox) =>
	sandbox.requests.map((r) => ({ method: r.method, url: r.path + r.query, body: r.body }));

/** An empty sandbox with one contact, ann, and her conversation (conv_00000001); the request log cleared. */
async function startWithAnn() {
	const started = await startSandbox({ seed: 'none' });
	started.sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	started.sandbox.store.createConversation({ contact_id: 'ct_ann' });
	started.sandbox.clearRequests();
	return started;
}

module.exports = { startSandbox, startWithAnn, byId, wire, TOKEN, BASE_URL_PASSWORD };
