#!/usr/bin/env node
'use strict';
/**
 * What the Messaging Trigger's adapter (nodes/MessagingTrigger/v2/n8nBridge.ts) relies on in n8n,
 * pinned against the installed n8n's own code (no n8n process): its trigger emit built by n8n's
 * TriggerExecutionContextFactory with stand-ins for the database and the queue, its cancellation
 * errors, its TriggerContext and its shutdown order. A change in any of them fails here, by name.
 *
 *   bash scripts/toolchain.sh node test/e2e/triggerBridge.e2e.js
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// n8n's modules read their settings on load: a user folder of their own, not the home folder.
process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-bridge-pin-'));
const { ensureN8n, RUNTIME_DIR } = require('../../scripts/lib/n8n-runtime');
const { buildPackage } = require('../../scripts/lib/build');
const { createChecks } = require('../../scripts/lib/checks');

const { check, finish, abort } = createChecks('e2e');
const modules = path.join(RUNTIME_DIR, 'node_modules');
const fromN8n = (file) => require(path.join(modules, file));
const n8nFile = (file) => fs.readFileSync(path.join(modules, 'n8n', 'dist', file), 'utf8');

/** n8n's trigger context, built by n8n's factory; `executions` stands in for the database's unique keys. */
function n8nTriggerContext() {
	const { TriggerExecutionContextFactory } = fromN8n(
		'n8n/dist/workflows/triggers/trigger-execution-context.factory.js',
	);
	const { DuplicateExecutionError } = fromN8n('n8n/dist/errors/duplicate-execution.error.js');
	const { Workflow } = fromN8n('n8n-workflow');
	const calls = [];
	const keys = new Set();
	const runs = new Map();
	const quiet = { debug() {}, info() {}, warn() {}, error() {} };
	const logger = { ...quiet, scoped: () => logger };
	const factory = new TriggerExecutionContextFactory(
		logger,
		{ warn() {}, error() {} },
		{ getPostExecutePromise: async (id) => await runs.get(id) },
		{ emit() {} },
		{},
		{ saveStaticData: async () => calls.push('saveStaticData') },
		{
			async runWorkflow(workflowData, node, data, additionalData, mode, response, key) {
				calls.push(`runWorkflow ${key}`);
				if (key !== undefined && keys.has(key)) throw new DuplicateExecutionError(key);
				if (key !== undefined) keys.add(key);
				const id = String(runs.size + 1);
				runs.set(
					id,
					Promise.resolve({
						status: 'success',
						finished: true,
						data: { resultData: { runData: {} } },
					}),
				);
				return id;
			},
		},
		{ modeTag: 'db' },
		{},
		{ interceptsNode: () => false },
		{
			getWorkflowOwnerCached: async () => ({ id: 'p' }),
			getPersonalProjectOwnerCached: async () => null,
		},
		{},
		{},
		{ scheduler: { pollTimeoutSeconds: 60, leaseDurationSeconds: 60 } },
		{ handles: () => false },
	);
	const node = {
		id: 'n1',
		name: 'Trigger',
		type: 'x',
		typeVersion: 2,
		position: [0, 0],
		parameters: {},
	};
	const workflowData = {
		id: 'wf1',
		name: 'wf',
		nodes: [node],
		connections: {},
		active: true,
		settings: {},
	};
	const workflow = new Workflow({
		...workflowData,
		nodeTypes: {
			getByNameAndVersion: () => ({ description: { properties: [] } }),
			getByName: () => undefined,
		},
	});
	const getContext = factory.getExecuteTriggerFunctions(
		workflowData,
		{},
		'trigger',
		'activate',
		async () => workflowData,
		() => {},
		{ createCollector: () => undefined },
	);
	return { context: getContext(workflow, workflow.getNode('Trigger')), calls };
}

async function main() {
	await ensureN8n();
	buildPackage();
	const bridge = require('../../dist/nodes/MessagingTrigger/v2/n8nBridge');
	const version = JSON.parse(n8nFile('../package.json')).version;
	console.log(`e2e: n8n ${version}'s own code, with stand-ins for its database and queue`);

	await check(
		'emit takes a deduplication key (four parameters): the bridge saves state by a dropped emit',
		() => {
			const { context } = n8nTriggerContext();
			assert.equal(context.emit.length, 4);
			assert.equal(bridge.honoursDeduplicationKeys(context), true);
		},
	);

	await check(
		'an attempt: static data saved first (not awaited), then the run; donePromise gives the run',
		async () => {
			const { context, calls } = n8nTriggerContext();
			const end = bridge.emitAttempt(context, [{ json: { id: 'm1' } }], 'key-1');
			assert.deepEqual(calls, ['saveStaticData']); // synchronously, before the execution is created
			assert.equal(await end, 'succeeded');
			assert.deepEqual(calls, ['saveStaticData', 'runWorkflow key-1']);
		},
	);

	await check(
		'a repeated key: no execution, donePromise resolves with nothing (no word on how the first one ended)',
		async () => {
			const { context, calls } = n8nTriggerContext();
			await bridge.emitAttempt(context, [{ json: { id: 'm1' } }], 'key-1');
			assert.equal(await bridge.emitAttempt(context, [{ json: { id: 'm1' } }], 'key-1'), 'existed');
			assert.equal(bridge.saveStaticDataNow(context, 'key-1'), true);
			await new Promise((r) => setTimeout(r, 50));
			assert.deepEqual(calls.filter((c) => c === 'saveStaticData').length, 3);
			assert.deepEqual(calls.filter((c) => c.startsWith('runWorkflow')).length, 3);
		},
	);

	await check(
		"a trigger cannot read an execution: TriggerContext has no getExecutionDataById (a node's context has)",
		() => {
			const core = fromN8n('n8n-core');
			assert.equal(typeof core.TriggerContext.prototype.getExecutionDataById, 'undefined');
			assert.equal(typeof core.ExecuteContext.prototype.getExecutionDataById, 'function');
		},
	);

	await check('cancellation errors say why in `reason` (shutdown, manual, timeout)', () => {
		const workflow = fromN8n('n8n-workflow');
		const reasons = [
			new workflow.SystemShutdownExecutionCancelledError('1'),
			new workflow.ManualExecutionCancelledError('1'),
			new workflow.TimeoutExecutionCancelledError('1'),
		].map((e) => [e.reason, bridge.executionEndOf({ rejected: e })]);
		assert.deepEqual(reasons, [
			['shutdown', 'cancelledByShutdown'],
			['manual', 'failed'],
			['timeout', 'failed'],
		]);
	});

	await check(
		'shutdown order: triggers are closed (OnShutdown) before n8n waits for active executions, within N8N_GRACEFUL_SHUTDOWN_TIMEOUT (30 s)',
		() => {
			const deactivator = n8nFile(
				'workflows/publication/published-workflow-trigger-deactivator.js',
			);
			assert.match(
				deactivator,
				/OnShutdown\)\(\),\s*__metadata[^\n]*\n[^\n]*\n[^\n]*\n\], PublishedWorkflowTriggerDeactivator\.prototype, "deactivateAllNonWebhookTriggers"/,
			);
			const base = n8nFile('commands/base-command.js');
			assert.match(
				base,
				/this\.shutdownService\.shutdown\(\);\s*await this\.shutdownService\.waitForShutdown\(\);[\s\S]*await this\.stopProcess\(\);/,
			);
			const start = n8nFile('commands/start.js');
			assert.match(start, /ActiveExecutions\)\.shutdown\(\)/);
			const generic = fs.readFileSync(
				path.join(modules, '@n8n/config/dist/configs/generic.config.js'),
				'utf8',
			);
			assert.match(generic, /this\.gracefulShutdownTimeout = 30;/);
			assert.ok(bridge.STOP_WAIT_MS < 30_000);
		},
	);

	finish();
}

main().catch(abort);
