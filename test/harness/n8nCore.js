'use strict';
/**
 * What every run of the harness (./n8n.js) shares: n8n-core set up for a test process, the package's compiled node
 * types, and the run's additional data with a credentials helper that applies the credential type's own
 * `authenticate` function, as n8n does.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-messaging-test-'));
}
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS = 'false';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_LOG_LEVEL ??= 'silent'; // n8n logs every node error; the tests assert on the errors themselves
require('reflect-metadata');
const { ExecutionLifecycleHooks } = require('n8n-core');
// n8n-core's SSH client manager keeps a 60 s cleanup interval until n8n shuts down, and the interval holds
// everything the test file loaded: each file's copy would stay in jest's worker (~18 MB a file). No test
// opens an SSH tunnel; the manager is shut down as soon as it exists.
{
	const { Container } = require(
		require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
	);
	const { SSHClientsManager } = require('n8n-core/dist/execution-engine/ssh-clients-manager');
	Container.get(SSHClientsManager).onShutdown();
}

// The files bench (--compare) runs an older build through the same harness.
const dist = process.env.MESSAGING_DIST
	? path.resolve(process.env.MESSAGING_DIST)
	: path.join(__dirname, '..', '..', 'dist');
const { Messaging } = require(path.join(dist, 'nodes/Messaging/Messaging.node.js'));
const { MessagingTrigger } = require(
	path.join(dist, 'nodes/MessagingTrigger/MessagingTrigger.node.js'),
);
const { MessagingApi } = require(path.join(dist, 'credentials/MessagingApi.credentials.js'));
const { transportDefaults, DEFAULT_RETRY } = require(
	path.join(dist, 'nodes/shared/transport/index.js'),
);

// Real backoff waits seconds per retry; a fast policy keeps every retry path tested without the wait.
// The default policy's own numbers are tested in test/unit/transport.test.js.
transportDefaults.retry = { ...DEFAULT_RETRY, baseDelayMs: 5, maxDelayMs: 20 };

/** A start node that emits the items a test gives it, so the node under test sees real input items. */
class Feed {
	description = {
		displayName: 'Feed',
		name: 'feed',
		group: ['input'],
		version: 1,
		description: 'Test input',
		defaults: { name: 'Feed' },
		inputs: [],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};
	/** @this {import('n8n-workflow').IExecuteFunctions} */
	async execute() {
		const items = JSON.parse(/** @type {string} */ (this.getNodeParameter('items', 0)));
		return [await Promise.all(items.map((item) => feedItem(this, item)))];
	}
}

/** The node as n8n derives an AI agent's tool from it: the same node under the name "<name><suffix>". */
function asTool(suffix) {
	const node = new Messaging();
	node.description = { ...node.description, name: `${node.description.name}${suffix}` };
	return node;
}

/**
 * An input item: its json, or `{ json, $binary: { field: { base64 | path, fileName, mimeType } } }` for
 * one with binary data, stored through n8n's prepareBinaryData as a node that produced a file would.
 */
async function feedItem(context, item) {
	if (!item || typeof item !== 'object' || !('$binary' in item)) return { json: item };
	const binary = {};
	for (const [field, file] of Object.entries(item.$binary)) {
		const bytes = file.path ? fs.readFileSync(file.path) : Buffer.from(file.base64 ?? '', 'base64');
		binary[field] = await context.helpers.prepareBinaryData(bytes, file.fileName, file.mimeType);
	}
	return { json: item.json ?? {}, binary };
}

const NODE_TYPES = {
	'test.feed': new Feed(),
	'n8n-nodes-messaging.messaging': new Messaging(),
	'n8n-nodes-messaging.messagingTool': asTool('Tool'),
	'n8n-nodes-messaging.messagingHitlTool': asTool('HitlTool'),
	'n8n-nodes-messaging.messagingTrigger': new MessagingTrigger(),
};
const credentialType = new MessagingApi();

/** @type {import('n8n-workflow').INodeTypes} */
const nodeTypes = {
	getByName: (type) => NODE_TYPES[type],
	getByNameAndVersion: (type) => NODE_TYPES[type],
	getKnownTypes: () => ({}),
};

/** How often n8n was asked for each credential object (n8n decrypts it, and more, at each read). */
const reads = new WeakMap();
/** @param {object} credentialData @returns {number} */
const credentialReads = (credentialData) => reads.get(credentialData) ?? 0;

/**
 * n8n's CredentialsHelper (an abstract class) as far as these runs call it.
 * @returns {import('n8n-workflow').ICredentialsHelper}
 */
function credentialsHelper(credentialData) {
	if (credentialData && typeof credentialData === 'object' && !reads.has(credentialData))
		reads.set(credentialData, 0);
	return /** @type {any} */ ({
		getParentTypes: () => [],
		getCredentialsProperties: () => credentialType.properties,
		isCredentialUsableByNode: () => true,
		async getDecrypted() {
			reads.set(credentialData, (reads.get(credentialData) ?? 0) + 1);
			return { ...credentialData };
		},
		async preAuthentication() {
			return undefined;
		},
		/** As n8n's CredentialsHelper.authenticate does for a function: called unbound, its result is the request. */
		async authenticate(credentials, typeName, requestOptions) {
			if (typeName !== credentialType.name)
				throw new Error(`unexpected credential type ${typeName}`);
			const { authenticate } = credentialType;
			return await authenticate(credentials, requestOptions);
		},
	});
}

/**
 * n8n's additional data for an execution, as far as n8n-core reads it in these runs.
 * @returns {import('n8n-workflow').IWorkflowExecuteAdditionalData}
 */
function additionalData(credentials, workflowData) {
	return /** @type {import('n8n-workflow').IWorkflowExecuteAdditionalData} */ ({
		credentialsHelper: credentialsHelper(credentials),
		hooks: new ExecutionLifecycleHooks('manual', 'test-execution', workflowData),
		executionId: 'test-execution',
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		variables: {},
		userId: 'test-user',
		currentNodeParameters: undefined,
		executionTimeoutTimestamp: undefined,
	});
}

const CREDENTIAL_REF = { messagingApi: { id: 'cred-1', name: 'Messaging account' } };

module.exports = { dist, NODE_TYPES, nodeTypes, additionalData, credentialReads, CREDENTIAL_REF };
