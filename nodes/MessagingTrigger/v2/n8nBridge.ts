/**
 * Everything version 2 relies on in n8n beyond the documented node interface, in one place: how an
 * execution's end reaches the trigger (emit's donePromise and deduplication key), the emit that only
 * saves static data, the cancellation and crash messages read, the process-wide map of executions
 * started here, and the adaptations to older n8n versions (feature-detected, never assumed).
 * Pinned by test/unit/n8nBridge.test.js against the installed n8n; docs/exactly-once.md has the evidence.
 */
import type { ExecutionError, INodeExecutionData, IRun, ITriggerFunctions } from 'n8n-workflow';

/**
 * How an attempt's execution ended, for its delivery:
 * - `succeeded`: finished (success, or parked waiting); done with it.
 * - `failed`: the workflow's own error, a manual stop, a timeout; done with it, as n8n treats any failed execution.
 * - `crashed`, `cancelledByShutdown`, `notStarted`: known not to have finished; emitted again.
 * - `existed`: n8n dropped the emit because an execution with its key exists (started before a restart);
 *   n8n tells a trigger nothing about how that execution ended, so it is emitted again as "outcome unknown".
 */
export type ExecutionEnd =
	| 'succeeded'
	| 'failed'
	| 'crashed'
	| 'cancelledByShutdown'
	| 'notStarted'
	| 'existed';

export function isFinalEnd(end: ExecutionEnd): boolean {
	return end === 'succeeded' || end === 'failed';
}

const WORKFLOW_ERROR_NAMES = [
	'NodeOperationError',
	'NodeApiError',
	'NodeSslError',
	'ExpressionError',
];

/** n8n's cancellation errors, by their `reason` (2.x) or, before it, by their message. */
function cancellationReason(error: unknown): string | undefined {
	const e = error as { reason?: unknown; message?: unknown } | undefined;
	if (typeof e?.reason === 'string') return e.reason;
	const message = typeof e?.message === 'string' ? e.message : '';
	if (/cancelled because the system is shutting down/i.test(message)) return 'shutdown';
	if (/cancelled because it timed out/i.test(message)) return 'timeout';
	if (/cancelled manually/i.test(message)) return 'manual';
	return undefined;
}

function isWorkflowError(error: unknown): boolean {
	const e = error as { node?: unknown; name?: unknown } | undefined;
	if (!e || typeof e !== 'object') return false;
	if (e.node && typeof e.node === 'object') return true;
	return typeof e.name === 'string' && WORKFLOW_ERROR_NAMES.includes(e.name);
}

/**
 * What `donePromise` said, as an ExecutionEnd. n8n resolves it with the execution's run (IRun),
 * resolves it with nothing when it dropped the emit as a duplicate key, and rejects it when the
 * execution was cancelled or could not be started.
 */
export function executionEndOf(
	result: { resolved: unknown } | { rejected: unknown },
): ExecutionEnd {
	if ('rejected' in result) {
		const reason = cancellationReason(result.rejected);
		if (reason === 'manual' || reason === 'timeout') return 'failed';
		return reason === 'shutdown' ? 'cancelledByShutdown' : 'notStarted';
	}
	const run = result.resolved as
		| { status?: string; finished?: boolean; data?: { resultData?: { error?: unknown } } }
		| undefined
		| null;
	if (run === undefined || run === null) return 'existed';
	const status = run.status;
	if (status === 'success' || status === 'waiting') return 'succeeded';
	if (status === undefined && run.finished === true) return 'succeeded';
	const error = run.data?.resultData?.error;
	const reason = cancellationReason(error);
	if (status === 'canceled') return reason === 'shutdown' ? 'cancelledByShutdown' : 'failed';
	if (status === 'error') {
		if (reason === 'manual' || reason === 'timeout') return 'failed';
		if (reason === 'shutdown') return 'cancelledByShutdown';
		return isWorkflowError(error) ? 'failed' : 'crashed';
	}
	return 'crashed';
}

/**
 * The ends of the executions this process started, by deduplication key, shared by every activation
 * in the process: a workflow saved while its executions run is activated anew, and the new activation
 * must wait for those executions instead of taking their deliveries for lost.
 */
const endsInProcess = new Map<string, Promise<ExecutionEnd>>();
const ENDS_KEPT = 10_000;

export function endInProcess(key: string): Promise<ExecutionEnd> | undefined {
	return endsInProcess.get(key);
}

function rememberEnd(key: string, end: Promise<ExecutionEnd>): void {
	endsInProcess.set(key, end);
	if (endsInProcess.size > ENDS_KEPT) {
		const oldest = endsInProcess.keys().next().value;
		if (oldest !== undefined) endsInProcess.delete(oldest);
	}
}

/**
 * Emits one attempt under its deduplication key; resolves with how its execution ended. n8n saves
 * the static data (not awaited) before it creates the execution.
 */
export function emitAttempt(
	context: ITriggerFunctions,
	items: INodeExecutionData[],
	key: string,
): Promise<ExecutionEnd> {
	const done = context.helpers.createDeferredPromise<IRun | undefined>();
	const end: Promise<ExecutionEnd> = done.promise.then(
		(resolved: IRun | undefined) => executionEndOf({ resolved }),
		(rejected: unknown) => executionEndOf({ rejected }),
	);
	rememberEnd(key, end);
	context.emit([items], undefined, done as Parameters<ITriggerFunctions['emit']>[2], key);
	return end;
}

/** Whether n8n passes emit's fourth argument on (2.20 and later): its emit declares four parameters. */
export function honoursDeduplicationKeys(context: ITriggerFunctions): boolean {
	return typeof context.emit === 'function' && context.emit.length >= 4;
}

/**
 * Saves the trigger's static data now. n8n saves it only when a trigger emits, so this emits nothing
 * under the key of an attempt whose execution exists (`existingKey`), and n8n drops the execution as
 * a duplicate: no execution appears. Where n8n ignores keys (before 2.20) that emit would start an
 * execution with no items, so nothing is emitted and the state waits for the next delivery's emit.
 * Returns whether a save was started (n8n does not let it be awaited).
 */
export function saveStaticDataNow(context: ITriggerFunctions, existingKey: string): boolean {
	if (!honoursDeduplicationKeys(context)) return false;
	context.emit([[]], undefined, undefined, existingKey);
	return true;
}

/** Tests only: forget the ends kept for the process. */
export function resetBridgeForTests(): void {
	endsInProcess.clear();
}

/**
 * A failed execution with the trigger's error (it runs the workflow's error workflow). Before n8n 2.7
 * triggers cannot save one: the error is logged instead.
 */
export function saveFailedExecution(context: ITriggerFunctions, error: ExecutionError): void {
	try {
		if (typeof context.saveFailedExecution === 'function') {
			context.saveFailedExecution(error);
			return;
		}
	} catch {
		// n8n before 2.7: TriggerContext's placeholder throws
	}
	context.logger.error(error.message, { description: error.description });
}

/** The package's one cancellable sleep (also for n8n before 2.34, whose own ignores the signal). */
export { sleepUnlessAborted } from '../../shared/sleep';

/**
 * How long a stopping trigger waits for the executions of its deliveries to end, so their ends are
 * saved rather than redelivered after the restart. Under n8n's graceful-shutdown time (30 s by
 * default, N8N_GRACEFUL_SHUTDOWN_TIMEOUT), which a node cannot read: n8n itself waits for running
 * executions before it exits, so this adds no time to a shutdown.
 */
export const STOP_WAIT_MS = 25_000;
