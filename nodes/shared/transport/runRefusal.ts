/**
 * Whether the service refused a whole run: a request spent its retry budget on service faults (429s,
 * 5xx, no answer) while the service served nothing of the run since that request was first sent (a
 * storm that does not clear). The run's other requests then stop instead of each spending a budget of
 * its own, so the run ends after one budget, not one per item. Pure: the times are the caller's.
 */
export class RunRefusal {
	/** When the service last served a request of the run (any answer but a 429 or a 5xx). */
	private lastServedAt = -Infinity;
	private refused = false;
	/** The status of the fault that stopped the run (undefined: no answer came). */
	status: number | undefined;

	/** An answer: one that served the request lifts the refusal. */
	answered(status: number, now: number): void {
		if (status === 429 || status >= 500) return;
		this.lastServedAt = now;
		this.refused = false;
	}

	/** A request first sent at `firstSentAt` spent its retry budget on faults, the last one `status`. */
	gaveUp(firstSentAt: number, status?: number): void {
		if (this.lastServedAt >= firstSentAt) return;
		this.refused = true;
		this.status = status;
	}

	get active(): boolean {
		return this.refused;
	}
}
