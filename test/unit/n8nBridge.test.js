'use strict';
/**
 * The adapter to n8n's internals (nodes/MessagingTrigger/v2/n8nBridge.ts), on its own. What it
 * assumes of n8n 2.40.7 itself is pinned against the installed n8n by test/e2e/triggerBridge.e2e.js.
 */
const bridge = require('../../dist/nodes/MessagingTrigger/v2/n8nBridge');
const {
	NodeOperationError,
	ManualExecutionCancelledError,
	TimeoutExecutionCancelledError,
	SystemShutdownExecutionCancelledError,
} = require('n8n-workflow');
const { createDeferredPromise } = require('@n8n/utils/promise/deferred-promise');

/** @type {import('n8n-workflow').INode} */
const node = {
	id: 'n',
	name: 'Messaging Trigger',
	type: 't',
	typeVersion: 2,
	position: [0, 0],
	parameters: {},
};
const run = (status, error) => ({
	status,
	finished: status === 'success',
	data: { resultData: { runData: {}, ...(error ? { error } : {}) } },
});

beforeEach(() => bridge.resetBridgeForTests());

describe('executionEndOf: how an execution ended, as n8n reports it through donePromise', () => {
	test.each([
		['success', { resolved: run('success') }, 'succeeded'],
		['waiting (a Wait node parked it)', { resolved: run('waiting') }, 'succeeded'],
		['dropped as a duplicate key (resolved with nothing)', { resolved: undefined }, 'existed'],
		['a node error', { resolved: run('error', new NodeOperationError(node, 'boom')) }, 'failed'],
		[
			'a node error serialized by a worker',
			{ resolved: run('error', { name: 'NodeApiError', message: 'x' }) },
			'failed',
		],
		['stopped by hand', { rejected: new ManualExecutionCancelledError('1') }, 'failed'],
		['timed out', { rejected: new TimeoutExecutionCancelledError('1') }, 'failed'],
		['canceled status', { resolved: run('canceled') }, 'failed'],
		['crashed', { resolved: run('crashed') }, 'crashed'],
		[
			'a killed worker (error without a node)',
			{
				resolved: run('error', { message: 'This execution failed to be processed too many times' }),
			},
			'crashed',
		],
		[
			'cancelled by a shutdown',
			{ rejected: new SystemShutdownExecutionCancelledError('1') },
			'cancelledByShutdown',
		],
		[
			'cancelled by a shutdown, as a run',
			{ resolved: run('canceled', new SystemShutdownExecutionCancelledError('1')) },
			'cancelledByShutdown',
		],
		['never started', { rejected: new Error('database is down') }, 'notStarted'],
		['an unknown status', { resolved: run('unknown') }, 'crashed'],
	])('%s', (_name, result, expected) => {
		expect(bridge.executionEndOf(result)).toBe(expected);
		expect(
			bridge.isFinalEnd(
				/** @type {import('../../dist/nodes/MessagingTrigger/v2/n8nBridge').ExecutionEnd} */ (
					expected
				),
			),
		).toBe(expected === 'succeeded' || expected === 'failed');
	});
});

/**
 * A trigger context with what the bridge uses of it; `logs` holds what it logged.
 * @returns {import('n8n-workflow').ITriggerFunctions & { logs: string[] }}
 */
function context(emit) {
	const logs = [];
	return /** @type {any} */ ({
		emit,
		helpers: { createDeferredPromise },
		logger: {
			warn: (m) => logs.push(`warn: ${m}`),
			error: (m) => logs.push(`error: ${m}`),
		},
		logs,
	});
}

describe('saving the static data by an emit n8n drops', () => {
	test('n8n 2.20 and later (emit takes a deduplication key): emits nothing under an existing key', async () => {
		const emits = [];
		const ctx = context((data, response, done, key) => emits.push({ data, key }));
		expect(bridge.saveStaticDataNow(ctx, 'k1')).toBe(true);
		expect(emits).toEqual([{ data: [[]], key: 'k1' }]);
	});

	test('before 2.20 (emit takes three arguments): never emits, so no execution without items', () => {
		const emits = [];
		const ctx = context((data, response, done) => emits.push({ data, done }));
		expect(bridge.honoursDeduplicationKeys(ctx)).toBe(false);
		expect(bridge.saveStaticDataNow(ctx, 'k1')).toBe(false);
		expect(emits).toEqual([]);
	});
});

test('emitAttempt: the end is kept for the whole process by key, for the next activation', async () => {
	/** @type {{ resolve: (run: unknown) => void }} */
	let done;
	const ctx = context((data, response, d) => (done = d));
	const end = bridge.emitAttempt(ctx, [{ json: { id: 'm1' } }], 'key-1');
	expect(bridge.endInProcess('key-1')).toBe(end);
	done.resolve(run('success'));
	await expect(end).resolves.toBe('succeeded');
});

test('a failed execution is saved where n8n can (2.7 and later), logged where it cannot', () => {
	const saved = [];
	const error = new NodeOperationError(node, 'checks failing');
	const modern = { ...context(), saveFailedExecution: (e) => saved.push(e) };
	bridge.saveFailedExecution(modern, error);
	expect(saved).toEqual([error]);
	const old = {
		...context(),
		saveFailedExecution: () => {
			throw new Error('Overwrite TriggerContext.saveFailedExecution function');
		},
	};
	expect(() => bridge.saveFailedExecution(old, error)).not.toThrow();
	expect(old.logs).toEqual(['error: checks failing']);
});

test('sleepUnlessAborted ends when aborted, even with a sleep that ignores the signal (n8n before 2.34)', async () => {
	const controller = new AbortController();
	const started = Date.now();
	const waiting = bridge.sleepUnlessAborted(60_000, controller.signal);
	setTimeout(() => controller.abort(), 20);
	await waiting;
	expect(Date.now() - started).toBeLessThan(5_000);
	await bridge.sleepUnlessAborted(60_000, controller.signal); // already aborted: at once
});
