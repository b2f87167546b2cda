/** Send and Wait for Reply's wait: one check per interval until an outcome, the deadline, or a cancel. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sleepUnlessAborted } from '../../shared/sleep';
import { DeadlineReached, MessagingApiError } from '../../shared/transport';
import { nodeErrorOf } from '../helpers/errorItem';

/** n8n reads "canceled" in a node's error as a cancelled execution, not a failed one. */
const CANCELED_MESSAGE = 'The execution was canceled while waiting for a reply';

/**
 * Checks until `check` returns an outcome, the deadline passes (undefined) or the execution is cancelled.
 * A 429 past the transport's retries skips one check; a check the service did not answer before the
 * deadline is the wait timing out.
 */
export async function waitFor<T>(
	context: IExecuteFunctions,
	check: () => Promise<T | undefined>,
	{
		deadline,
		intervalMs,
		itemIndex,
		explain,
	}: {
		deadline: number;
		intervalMs: number;
		itemIndex: number;
		/** A failed check told in the wait's own terms, when it has some. */
		explain?: (error: unknown) => NodeOperationError | undefined;
	},
): Promise<T | undefined> {
	const cancelSignal = context.getExecutionCancelSignal();
	const cancelled = () =>
		new NodeOperationError(context.getNode(), CANCELED_MESSAGE, { itemIndex });
	for (;;) {
		try {
			const outcome = await check();
			if (outcome !== undefined) return outcome;
		} catch (error) {
			if (cancelSignal?.aborted) throw cancelled();
			if (error instanceof DeadlineReached) return undefined;
			// A check the service did not answer in time (a timeout, a dropped connection, a 5xx) whose next
			// try would come after the wait ends: the wait timed out, as On Timeout says.
			if (isServiceFault(error) && (Date.now() >= deadline || reachedDeadline(error)))
				return undefined;
			// Rate limited past the transport's retries: this check is skipped, the wait goes on.
			if ((error as { httpCode?: unknown }).httpCode !== '429')
				throw explain?.(error) ?? nodeErrorOf(context.getNode(), error, itemIndex);
		}
		const remaining = deadline - Date.now();
		if (remaining <= 0) return undefined;
		if (!(await sleepUnlessAborted(Math.min(intervalMs, remaining), cancelSignal)))
			throw cancelled();
	}
}

/** A fault of the service or the network, not an answer about the request (no status, a 429 or a 5xx). */
function isServiceFault(error: unknown): boolean {
	const code = (error as { httpCode?: unknown }).httpCode;
	if (code === undefined || code === null) return true;
	const status = Number(code);
	return !Number.isFinite(status) || status === 429 || status >= 500;
}

/** Whether the transport gave the request up because its next try would have come past its deadline. */
function reachedDeadline(error: unknown): boolean {
	return error instanceof MessagingApiError && error.deadlineReached;
}
