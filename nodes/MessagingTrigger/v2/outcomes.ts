import type { Outcome } from './deliveryLedger';

/**
 * Outcomes of the executions this process started, by deduplication key, shared by every activation
 * in the process: a workflow saved while its executions run is activated anew, and the new activation
 * must wait for those executions instead of taking their deliveries for lost.
 */
export const outcomesInProcess = new Map<string, Promise<Outcome>>();
const OUTCOMES_KEPT = 10_000;

export function rememberOutcome(key: string, outcome: Promise<Outcome>): void {
	outcomesInProcess.set(key, outcome);
	if (outcomesInProcess.size > OUTCOMES_KEPT) {
		const oldest = outcomesInProcess.keys().next().value;
		if (oldest !== undefined) outcomesInProcess.delete(oldest);
	}
}
