'use strict';
/**
 * What the UI scenarios run against: the sandbox service with the demo data plus enough conversations
 * to need a second page in the pickers, and a real n8n with the packed package installed as users
 * install it, an owner account and one imported credential ("Messaging (sandbox)").
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const n8n = require('../lib/n8n');
const { createSandbox } = require('../../sandbox/server');
const { seedDemo } = require('../../sandbox/seed');

const WORK = path.join(n8n.ROOT, '.ui');
const USER = path.join(WORK, 'user');
const SHOTS = path.join(WORK, 'screenshots');
const TOKEN = 'ui-token-5c1e';
const CREDENTIAL_ID = 'uiMessagingCred1';
const CREDENTIAL_NAME = 'Messaging (sandbox)';
/** More than the pickers' page of 100, so "From List" has to load a second page. */
const EXTRA_CONVERSATIONS = 110;
/** The extra conversations' contacts: ct_customer_001 …; the last one's conversation has no message. */
const customerId = (n) => `ct_customer_${String(n).padStart(3, '0')}`;

function seed(store) {
	seedDemo(store);
	const extra = [];
	for (let n = 1; n <= EXTRA_CONVERSATIONS; n++) {
		const contact = store.addContact({ id: customerId(n), username: `customer${n}` });
		extra.push(store.createConversation({ contact_id: contact.id }).id);
	}
	return extra;
}

/** The service's list order, whatever order the store keeps: newest first, by created_at then id. */
const newestFirst = (messages) =>
	[...messages].sort(
		(a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
	);

async function prepare({ log = n8n.log } = {}) {
	n8n.ensureN8n();
	log('ui: building and packing the package…');
	execFileSync(process.execPath, [path.join(n8n.ROOT, 'node_modules/gulp/bin/gulp.js'), 'build'], {
		cwd: n8n.ROOT,
		stdio: 'ignore',
	});
	fs.rmSync(USER, { recursive: true, force: true });
	fs.rmSync(SHOTS, { recursive: true, force: true });
	fs.mkdirSync(USER, { recursive: true });
	fs.mkdirSync(SHOTS, { recursive: true });

	let extraConversations = [];
	const sandbox = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: (store) => {
			extraConversations = seed(store);
		},
	}).start();

	const { tarball } = n8n.packPackage(WORK);
	n8n.installPackage(USER, tarball);
	const credentialFile = path.join(WORK, 'credential.json');
	fs.writeFileSync(
		credentialFile,
		JSON.stringify([
			{
				id: CREDENTIAL_ID,
				name: CREDENTIAL_NAME,
				type: 'messagingApi',
				data: { baseUrl: sandbox.url, accessToken: TOKEN, timestampUnit: 'auto', ownContactId: '' },
			},
		]),
	);
	log('ui: importing the credential (first n8n command: database migrations)…');
	await n8n.n8nCli(USER, ['import:credentials', `--input=${credentialFile}`]);
	log('ui: starting n8n…');
	const app = await n8n.startN8n(USER);
	const session = await n8n.ownerSession(app.url);
	return { sandbox, app, session, extraConversations, token: TOKEN };
}

module.exports = {
	prepare,
	newestFirst,
	WORK,
	USER,
	SHOTS,
	TOKEN,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	EXTRA_CONVERSATIONS,
	customerId,
};
