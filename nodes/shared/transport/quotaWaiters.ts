/**
 * Requests past their turn that wait for an answer to renew a spent announced quota (a bare
 * `X-RateLimit-Remaining` of 0), and those let go that have not taken their new turn yet. The Pacer
 * decides how many may go; this keeps who waits, in order, and the places already promised.
 */

import type { Admitted } from './types';

export class QuotaWaiters {
	private readonly waiting: Admitted[] = [];
	/** Let go, and not back for their new turn yet: places already promised. */
	private letGo = 0;

	/** Requests let go that have not taken their new turn yet. */
	get retaking(): number {
		return this.letGo;
	}

	wait(start: Admitted): void {
		this.waiting.push(start);
	}

	/** One request let go is back for its new turn. */
	returned(): void {
		if (this.letGo > 0) this.letGo -= 1;
	}

	/** A waiting request stops waiting and takes a new turn; false when it was let go already. */
	withdraw(start: Admitted): boolean {
		const index = this.waiting.indexOf(start);
		if (index < 0) return false;
		this.waiting.splice(index, 1);
		this.letGo += 1;
		return true;
	}

	/** Lets up to `count` go, first come first served; each is told to take a new turn. */
	release(count: number): void {
		const released = this.waiting.splice(0, Math.max(0, count));
		this.letGo += released.length;
		for (const retake of released) retake(undefined);
	}
}
