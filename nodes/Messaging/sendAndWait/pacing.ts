import { sleep } from 'n8n-workflow';

import { Throttle } from '../../shared/transport';

/** Thrown when the run's rate-limit pause would outlast the wait for a reply. */
export class DeadlineReached extends Error {
	constructor() {
		super('The wait for a reply ended while the service was rate limiting requests');
	}
}

/**
 * The run's throttle as the reply checks see it: the same pace (a 429 on any item slows every check),
 * but a turn that can be cut short. Cancelling the execution ends the pause at once, and a pause that
 * would run past the deadline ends the wait instead of holding on. No timer outlives it.
 */
export class InterruptibleTurns extends Throttle {
	constructor(
		private readonly shared: Throttle,
		private readonly cancelSignal: AbortSignal | undefined,
		private readonly deadline: number,
	) {
		super();
	}

	onRateLimited(waitMs: number, startedAt?: number): void {
		this.shared.onRateLimited(waitMs, startedAt);
	}

	onSuccess(): void {
		this.shared.onSuccess();
	}

	reserve(): number {
		return this.shared.reserve();
	}

	async waitTurn(): Promise<number> {
		throwIfCancelled(this.cancelSignal);
		const wait = this.shared.reserve();
		if (wait > 0 && Date.now() + wait > this.deadline) throw new DeadlineReached();
		if (wait > 0) await sleep(wait, this.cancelSignal);
		return wait;
	}
}

export class Cancelled extends Error {
	constructor() {
		// n8n reads "canceled" in a node's error as a cancelled execution, not a failed one.
		super('The execution was canceled while waiting for a reply');
	}
}

export function throwIfCancelled(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new Cancelled();
}

/** Sleeps `ms`, or ends at once (throwing Cancelled) when the execution is cancelled; clears its timer either way. */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
	throwIfCancelled(signal);
	try {
		await sleep(ms, signal);
	} catch (error) {
		if (signal?.aborted) throw new Cancelled();
		throw error;
	}
}
