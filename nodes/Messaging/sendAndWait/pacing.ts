import { sleep } from 'n8n-workflow';

import type { Pacer, RequestPace } from '../../shared/transport/pacer';
import type { Admitted, ResponseInfo, Turn } from '../../shared/transport/types';

/** Thrown when the run's rate-limit pause would outlast the wait for a reply. */
export class DeadlineReached extends Error {
	constructor() {
		super('The wait for a reply ended while the service was rate limiting requests');
	}
}

/**
 * The run's pace as the reply checks see it: the same pace (a 429 on any item slows every check), but
 * a turn that is refused when the execution was cancelled, or when its wait would run past the
 * deadline of the wait for a reply. (The transport's own waits end at once on cancel.)
 */
export class InterruptiblePacer implements RequestPace {
	/** The turn just refused: the shared pace reserved it, the caller never got it. */
	private refused: Turn | undefined;

	constructor(
		private readonly shared: Pacer,
		private readonly cancelSignal: AbortSignal | undefined,
		private readonly deadline: number,
	) {}

	onResponse(info: ResponseInfo): void {
		this.shared.onResponse(info);
	}

	admit(start: Admitted, turn?: Turn): number | undefined {
		return this.shared.admit(start, turn);
	}

	withdraw(start: Admitted): boolean {
		return this.shared.withdraw(start);
	}

	settle(): void {
		this.shared.settle();
	}

	gaveUpRateLimited(firstSentAt: number): void {
		this.shared.gaveUpRateLimited(firstSentAt);
	}

	/**
	 * Never for the reply checks: a wait for a reply goes on through a storm (a check refused past its
	 * retries is skipped), asking at the run's pace, and a check served again lifts the run's refusal.
	 */
	get refusingRun(): boolean {
		return false;
	}

	/** The caller's turn, or the one refused since (the caller's was then given up or is the same). */
	abandonTurn(turn?: Turn): void {
		this.shared.abandonTurn(this.refused ?? turn);
		this.refused = undefined;
	}

	takeTurn(): Turn {
		return this.checked(this.shared.takeTurn());
	}

	resume(turn: Turn): Turn {
		return this.checked(this.shared.resume(turn));
	}

	private checked(turn: Turn): Turn {
		this.refused = turn;
		throwIfCancelled(this.cancelSignal);
		if (turn.wait > 0 && Date.now() + turn.wait > this.deadline) throw new DeadlineReached();
		this.refused = undefined;
		return turn;
	}
}

/** n8n reads "canceled" in a node's error as a cancelled execution, not a failed one. */
export const CANCELED_MESSAGE = 'The execution was canceled while waiting for a reply';

export class Cancelled extends Error {
	constructor() {
		super(CANCELED_MESSAGE);
	}
}

export function throwIfCancelled(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new Cancelled();
}

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
