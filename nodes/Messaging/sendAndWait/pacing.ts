import { sleep } from 'n8n-workflow';

export { DeadlineReached } from '../../shared/transport';

/** n8n reads "canceled" in a node's error as a cancelled execution, not a failed one. */
export const CANCELED_MESSAGE = 'The execution was canceled while waiting for a reply';

/**
 * Sleeps `ms`, or ends at once when the execution is cancelled (its timer cleared). Returns false when
 * cancelled.
 */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
	if (signal?.aborted) return false;
	try {
		await sleep(ms, signal);
		return true;
	} catch {
		// sleep() rejects only when the signal fires
		return false;
	}
}
