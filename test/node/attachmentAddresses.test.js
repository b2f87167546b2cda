'use strict';
/**
 * Download Attachments and the internal network, through n8n-core's real request helpers: an attachment
 * URL (written by another chat participant) on another loopback address, a private name or a redirect to
 * one is refused unless it is on the Base URL's origin or the option allows it; with n8n's SSRF protection
 * on, its refusal is reported as such and never retried.
 */
const dns = require('node:dns');
const http = require('node:http');
const path = require('node:path');
const { runMessagingNode, createPollingTrigger } = require('../harness/n8n');
const { startSandbox, byId, TOKEN } = require('../harness/sandbox');

// n8n's own modules, as n8n-core loads them (the same DI container its request helpers use).
const network = path.dirname(
	require.resolve('@n8n/backend-network', { paths: [path.dirname(require.resolve('n8n-core'))] }),
);
const fromNetwork = (name) => require(require.resolve(name, { paths: [network] }));
const { Container } = fromNetwork('@n8n/di');
const { SsrfProtectionConfig } = fromNetwork('@n8n/config');
const { SsrfProtectionService } = fromNetwork('@n8n/backend-network');

// n8n's SSRF protection, when a test turns it on: the sandbox (the Base URL) on 127.0.0.1 stays reachable.
const ssrfConfig = Container.get(SsrfProtectionConfig);
ssrfConfig.allowedIpRanges = ['127.0.0.1/32'];
const ssrfBlocked = [];
Container.get(SsrfProtectionService).events.on('ssrf.blocked', (event) => ssrfBlocked.push(event));

let sandbox;
let credentials;
/** A server on 127.0.0.2 (another loopback address, as an internal service would be): what it was asked. */
let internal;
const realLookup = dns.lookup;
const realPromisesLookup = dns.promises.lookup;

beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	const requests = [];
	const server = http.createServer((request, response) => {
		requests.push(request.url);
		response.setHeader('content-type', 'text/plain');
		response.end('internal secret');
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.2', () => resolve(undefined)));
	const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
	internal = { server, requests, url: `http://127.0.0.2:${port}` };
	ssrfConfig.enabled = false;
	ssrfBlocked.length = 0;
});
afterEach(async () => {
	dns.lookup = realLookup;
	dns.promises.lookup = realPromisesLookup;
	ssrfConfig.enabled = false;
	await sandbox?.stop();
	await new Promise((resolve) => internal.server.close(resolve));
});

/** A message from ann with these attachments; its id. */
const storedMessage = (attachments) =>
	sandbox.store.sendMessage('ct_ann', {
		conversation_id: 'conv_00000001',
		message: 'm',
		attachments,
	}).id;
const get = (messageId, options = {}) =>
	runMessagingNode({
		parameters: {
			resource: 'message',
			operation: 'get',
			messageId: byId(messageId),
			options: { downloadAttachments: true, ...options },
		},
		credentials,
	});
const bytesOf = (item, field) => Buffer.from(item.binary[field].data, 'base64').toString();
/** Names resolve as the map says (else as before), for n8n's resolver and the connection alike. */
const resolveAs = (names) => {
	// Stand-ins with the resolvers' calling conventions, not their full typed overloads.
	dns.lookup = /** @type {any} */ (
		(hostname, options, callback) => {
			const address = names[hostname];
			if (!address) return realLookup(hostname, options, callback);
			const cb = typeof options === 'function' ? options : callback;
			if (options?.all) cb(null, [{ address, family: 4 }]);
			else cb(null, address, 4);
		}
	);
	dns.promises.lookup = /** @type {any} */ (
		async (hostname, options) => {
			const address = names[hostname];
			if (!address) return await realPromisesLookup(hostname, options);
			return options?.all ? [{ address, family: 4 }] : { address, family: 4 };
		}
	);
};

describe('by default', () => {
	test('a URL on another loopback address is refused, naming the message and the attachment; nothing is asked of it', async () => {
		const id = storedMessage([{ name: 'secret.txt', url: `${internal.url}/admin/secret` }]);
		const { items, error } = await get(id);
		expect(items).toEqual([]);
		expect(error.message).toBe(
			"Attachment 0 of message msg_00000001 (secret.txt) could not be downloaded: its url is on 127.0.0.2, a loopback address: refused outside the Base URL's origin (option Allow Private Addresses) [item 0]",
		);
		expect(internal.requests).toEqual([]);
	});

	test.each([
		[
			'http://169.254.169.254/latest/meta-data/',
			'169.254.169.254, a link-local address (where cloud metadata services answer)',
		],
		['http://2130706433:1/x', '127.0.0.1, a loopback address'],
		['http://[::ffff:127.0.0.2]:1/x', '[::ffff:7f00:2], a loopback address, IPv4-mapped'],
		['http://localhost:1/x', 'localhost, a name of this machine'],
		[
			'http://metadata.google.internal/computeMetadata/v1/',
			'metadata.google.internal, a name of the local network (.internal)',
		],
	])('%s is refused before any connection', async (url, what) => {
		const { error } = await get(storedMessage([{ url }]));
		expect(error.message).toBe(
			`Attachment 0 of message msg_00000001 could not be downloaded: its url is on ${what}: refused outside the Base URL's origin (option Allow Private Addresses) [item 0]`,
		);
	});

	test('a name that resolves to an internal address is refused with the address', async () => {
		resolveAs({ 'files.corp.example': '127.0.0.2' });
		const port = internal.server.address().port;
		const id = storedMessage([{ name: 'r.pdf', url: `http://files.corp.example:${port}/r.pdf` }]);
		const { error } = await get(id);
		expect(error.message).toMatch(
			/\(r.pdf\) could not be downloaded: its url is on files.corp.example, which resolves to 127.0.0.2, a loopback address: refused outside the Base URL's origin/,
		);
		expect(internal.requests).toEqual([]);
	});

	test('the Base URL’s own origin still works (a self-hosted service on a private network), with the token', async () => {
		const id = storedMessage([{ name: 'own.txt', url: sandbox.addFile('own bytes', 'own.txt') }]);
		const { items, error } = await get(id);
		expect(error).toBeUndefined();
		expect(bytesOf(items[0], 'attachment_0')).toBe('own bytes');
		const fetches = sandbox.requests.filter((r) => r.path.startsWith('/files/'));
		expect(fetches.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`]);
	});

	test('the same host on another port is another origin: refused', async () => {
		const id = storedMessage([
			{ url: sandbox.addFile('far', 'far.txt', 'text/plain', { other: true }) },
		]);
		const { error } = await get(id);
		expect(error.message).toMatch(/its url is on 127.0.0.1, a loopback address: refused/);
		expect(sandbox.other.requests).toEqual([]);
	});

	test('a redirect from the Base URL’s origin to another loopback address is refused, and not followed', async () => {
		const id = storedMessage([{ name: 'r.txt', url: sandbox.addFile('x', 'r.txt') }]);
		sandbox.failNext({
			match: { path: '/files/*' },
			redirect: 302,
			location: `${internal.url}/admin/secret`,
		});
		const { error } = await get(id);
		expect(error.message).toBe(
			"Attachment 0 of message msg_00000001 (r.txt) could not be downloaded: it redirects to an address that is on 127.0.0.2, a loopback address: refused outside the Base URL's origin (option Allow Private Addresses) [item 0]",
		);
		expect(internal.requests).toEqual([]);
	});

	test('the trigger delivers the message with the refusal in attachmentErrors', async () => {
		const trigger = createPollingTrigger({
			credentials,
			parameters: { options: { downloadAttachments: true } },
		});
		expect(await trigger.poll()).toBeNull();
		storedMessage([{ name: 'secret.txt', url: `${internal.url}/admin/secret` }]);
		const [items] = await trigger.poll();
		expect(items[0].binary).toBeUndefined();
		expect(items[0].json.attachmentErrors).toEqual([
			"Attachment 0 of message msg_00000001 (secret.txt) could not be downloaded: its url is on 127.0.0.2, a loopback address: refused outside the Base URL's origin (option Allow Private Addresses)",
		]);
		expect(internal.requests).toEqual([]);
	});
});

describe('Allow Private Addresses', () => {
	test('fetches from another loopback address, directly and after a redirect, without the token', async () => {
		const direct = storedMessage([{ name: 'a.txt', url: `${internal.url}/a.txt` }]);
		const redirected = storedMessage([{ name: 'b.txt', url: sandbox.addFile('x', 'b.txt') }]);
		const first = await get(direct, { allowPrivateAddresses: true });
		sandbox.failNext({
			match: { path: '/files/*' },
			redirect: 302,
			location: `${internal.url}/b.txt`,
		});
		const second = await get(redirected, { allowPrivateAddresses: true });
		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(bytesOf(first.items[0], 'attachment_0')).toBe('internal secret');
		expect(bytesOf(second.items[0], 'attachment_0')).toBe('internal secret');
		expect(internal.requests).toEqual(['/a.txt', '/b.txt']);
	});

	test('on the trigger too', async () => {
		const trigger = createPollingTrigger({
			credentials,
			parameters: { options: { downloadAttachments: true, allowPrivateAddresses: true } },
		});
		expect(await trigger.poll()).toBeNull();
		storedMessage([{ name: 'a.txt', url: `${internal.url}/a.txt` }]);
		const [items] = await trigger.poll();
		expect(bytesOf(items[0], 'attachment_0')).toBe('internal secret');
	});
});

describe("n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED)", () => {
	beforeEach(() => {
		ssrfConfig.enabled = true;
	});

	test('its refusal is reported as such, once: not retried as a network error', async () => {
		const id = storedMessage([{ name: 'secret.txt', url: `${internal.url}/admin/secret` }]);
		const { error } = await get(id, { allowPrivateAddresses: true });
		expect(error.message).toBe(
			"Attachment 0 of message msg_00000001 (secret.txt) could not be downloaded: refused by n8n's SSRF protection: 127.0.0.2 [item 0]",
		);
		expect(ssrfBlocked).toHaveLength(1);
		expect(internal.requests).toEqual([]);
	});

	test('a redirect it refuses, and a name it resolves and refuses, likewise', async () => {
		const redirected = storedMessage([{ name: 'r.txt', url: sandbox.addFile('x', 'r.txt') }]);
		sandbox.failNext({ match: { path: '/files/*' }, redirect: 302, location: `${internal.url}/r` });
		const viaRedirect = await get(redirected, { allowPrivateAddresses: true });
		expect(viaRedirect.error.message).toMatch(
			/\(r.txt\) could not be downloaded: refused by n8n's SSRF protection: 127.0.0.2 \[item 0\]$/,
		);
		resolveAs({ 'files.corp.example': '127.0.0.2' });
		const named = storedMessage([{ name: 'n.txt', url: 'http://files.corp.example/n.txt' }]);
		const byName = await get(named);
		expect(byName.error.message).toMatch(
			/\(n.txt\) could not be downloaded: refused by n8n's SSRF protection: files.corp.example \(127.0.0.2\) \[item 0\]$/,
		);
		expect(ssrfBlocked).toHaveLength(2);
		expect(internal.requests).toEqual([]);
	});
});
