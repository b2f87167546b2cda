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

/** Whether the installed n8n has a file under n8n/dist (older versions keep the same code elsewhere). */
const hasN8nFile = (file) => fs.existsSync(path.join(modules, 'n8n', 'dist', file));
const FACTORY = 'workflows/triggers/trigger-execution-context.factory.js';

/**
 * n8n's trigger context, built by n8n's own code with stand-ins for the database (`keys`: its unique
 * deduplication keys) and the queue: the factory of recent n8n, or before it (up to 2.3x) the same emit in
 * ActiveWorkflowManager.getExecuteTriggerFunctions, called on a stand-in for the manager.
 */
function n8nTriggerContext() {
	const { Workflow } = fromN8n('n8n-workflow');
	const calls = [];
	const keys = new Set();
	const runs = new Map();
	const quiet = { debug() {}, info() {}, warn() {}, error() {} };
	const logger = { ...quiet, scoped: () => logger };
	const duplicateError = hasN8nFile('errors/duplicate-execution.error.js')
		? fromN8n('n8n/dist/errors/duplicate-execution.error.js').DuplicateExecutionError
		: undefined;
	const workflowExecutionService = {
		async runWorkflow(workflowData, node, data, additionalData, mode, response, key) {
			calls.push(`runWorkflow ${key}`);
			if (key !== undefined && keys.has(key)) throw new duplicateError(key);
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
	};
	const activeExecutions = { getPostExecutePromise: async (id) => await runs.get(id) };
	const workflowStaticDataService = { saveStaticData: async () => calls.push('saveStaticData') };
	const errorReporter = { warn() {}, error() {} };
	const eventService = { emit() {} };
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
	let getContext;
	if (hasN8nFile(FACTORY)) {
		const { TriggerExecutionContextFactory } = fromN8n(`n8n/dist/${FACTORY}`);
		const factory = new TriggerExecutionContextFactory(
			logger,
			errorReporter,
			activeExecutions,
			eventService,
			{},
			workflowStaticDataService,
			workflowExecutionService,
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
		getContext = factory.getExecuteTriggerFunctions(
			workflowData,
			{},
			'trigger',
			'activate',
			async () => workflowData,
			() => {},
			{ createCollector: () => undefined },
		);
	} else {
		const { ActiveWorkflowManager } = fromN8n('n8n/dist/active-workflow-manager.js');
		const manager = {
			logger,
			errorReporter,
			activeExecutions,
			eventService,
			workflowStaticDataService,
			workflowExecutionService,
		};
		getContext = ActiveWorkflowManager.prototype.getExecuteTriggerFunctions.call(
			manager,
			workflowData,
			{},
			'trigger',
			'activate',
		);
	}
	return { context: getContext(workflow, workflow.getNode('Trigger')), calls };
}

async function main() {
	await ensureN8n();
	buildPackage();
	const bridge = require('../../dist/nodes/MessagingTrigger/v2/n8nBridge');
	const version = JSON.parse(n8nFile('../package.json')).version;
	console.log(`e2e: n8n ${version}'s own code, with stand-ins for its database and queue`);

	// n8n passes emit's deduplication key on from 2.20 (docs/compatibility.md); before, the bridge must not rely on it.
	const [major, minor] = version.split('.').map(Number);
	const keyed = major > 2 || (major === 2 && minor >= 20);

	if (keyed)
		await check(
			'emit takes a deduplication key (four parameters): the bridge saves state by a dropped emit',
			() => {
				const { context } = n8nTriggerContext();
				assert.equal(context.emit.length, 4);
				assert.equal(bridge.honoursDeduplicationKeys(context), true);
			},
		);
	else
		await check(
			'emit takes no deduplication key before n8n 2.20 (three parameters): the bridge emits nothing only to save state',
			async () => {
				const { context, calls } = n8nTriggerContext();
				assert.equal(context.emit.length, 3);
				assert.equal(bridge.honoursDeduplicationKeys(context), false);
				assert.equal(bridge.saveStaticDataNow(context, 'key-1'), false);
				await new Promise((r) => setTimeout(r, 50));
				assert.deepEqual(calls, []); // no save, and above all no execution without items
			},
		);

	await check(
		'an attempt: static data saved first (not awaited), then the run; donePromise gives the run',
		async () => {
			const { context, calls } = n8nTriggerContext();
			const end = bridge.emitAttempt(context, [{ json: { id: 'm1' } }], 'key-1');
			assert.equal(calls[0], 'saveStaticData'); // synchronously, before the execution is created
			assert.equal(await end, 'succeeded');
			assert.deepEqual(calls, ['saveStaticData', `runWorkflow ${keyed ? 'key-1' : undefined}`]);
		},
	);

	if (keyed)
		await check(
			'a repeated key: no execution, donePromise resolves with nothing (no word on how the first one ended)',
			async () => {
				const { context, calls } = n8nTriggerContext();
				await bridge.emitAttempt(context, [{ json: { id: 'm1' } }], 'key-1');
				assert.equal(
					await bridge.emitAttempt(context, [{ json: { id: 'm1' } }], 'key-1'),
					'existed',
				);
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

	await check(
		'cancellation errors say why in `reason` (shutdown, manual, timeout), or before it (2.0) in their message',
		() => {
			const workflow = fromN8n('n8n-workflow');
			const errors = [
				[
					new workflow.SystemShutdownExecutionCancelledError('1'),
					'shutdown',
					'cancelledByShutdown',
				],
				[new workflow.ManualExecutionCancelledError('1'), 'manual', 'failed'],
				[new workflow.TimeoutExecutionCancelledError('1'), 'timeout', 'failed'],
			];
			for (const [error, reason, end] of errors) {
				if (error.reason === undefined)
					assert.match(error.message, /cancelled (because|manually)/, error.message);
				else assert.equal(error.reason, reason);
				assert.equal(bridge.executionEndOf({ rejected: error }), end, error.message);
			}
		},
	);

	await check(
		'shutdown order: triggers are closed (OnShutdown) before n8n waits for active executions, within N8N_GRACEFUL_SHUTDOWN_TIMEOUT (30 s)',
		() => {
			// Recent n8n closes triggers in its own class; before, ActiveWorkflowManager did (2.20.12 read).
			const [file, owner, method] = hasN8nFile(
				'workflows/publication/published-workflow-trigger-deactivator.js',
			)
				? [
						'workflows/publication/published-workflow-trigger-deactivator.js',
						'PublishedWorkflowTriggerDeactivator',
						'deactivateAllNonWebhookTriggers',
					]
				: [
						'active-workflow-manager.js',
						'ActiveWorkflowManager',
						'removeAllTriggerAndPollerBasedWorkflows',
					];
			assert.match(
				n8nFile(file),
				new RegExp(
					`OnShutdown\\)\\(\\),\\s*__metadata[^\\n]*\\n[^\\n]*\\n[^\\n]*\\n\\], ${owner}\\.prototype, "${method}"`,
				),
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
	// Older n8n's modules (2.20's ActiveWorkflowManager and what it loads) leave timers running on load.
	process.exit();
}

main().catch(abort);
