/**
 * The pace shared by the concurrent requests of one run. A 429 holds every request until the service's
 * Retry-After and from then on spaces request starts at least that far apart; each success shrinks the
 * gap by 3%. A rate limit slows the whole run to the service's rate instead of setting off a storm of
 * retries that each fail again.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

const MIN_SPACING_MS = 2;
const MAX_SPACING_MS = 2_000;

export class Throttle {
	private resumeAt = 0;
	private nextStart = 0;
	private spacingMs = 0;
	private lastSlowdown = -Infinity;

	constructor(private readonly clock: () => number = Date.now) {}

	/**
	 * `startedAt`: when the rejected request was sent. Requests sent before the last slowdown were paced
	 * the old way, so their 429s are the same event, not new information.
	 */
	onRateLimited(waitMs: number, startedAt: number = this.clock()): void {
		const now = this.clock();
		this.resumeAt = Math.max(this.resumeAt, now + waitMs);
		if (startedAt > this.lastSlowdown) {
			const next = waitMs > 0 ? Math.max(waitMs, this.spacingMs) : this.spacingMs * 2;
			this.spacingMs = Math.min(MAX_SPACING_MS, Math.max(MIN_SPACING_MS, next));
			this.lastSlowdown = now;
		}
	}

	onSuccess(): void {
		this.spacingMs = this.spacingMs < 0.5 ? 0 : this.spacingMs * 0.97;
	}

	/** Milliseconds the next request must wait before it starts; reserves its start. */
	reserve(): number {
		const now = this.clock();
		const start = Math.max(now, this.resumeAt, this.nextStart);
		this.nextStart = start + this.spacingMs;
		return start - now;
	}

	/** Waits for this request's turn; returns how long that took. */
	async waitTurn(): Promise<number> {
		const wait = this.reserve();
		if (wait > 0) await sleep(wait);
		return wait;
	}
}

/** Milliseconds the service asked us to wait: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date. */
export function retryAfterMs(headers: IDataObject | undefined, now = Date.now()): number | undefined {
	if (!headers) return undefined;
	const header = (name: string) => {
		const value = headers[name] ?? headers[name.toLowerCase()];
		return value === undefined || value === null ? undefined : String(value).trim();
	};
	const milliseconds = header('retry-after-ms');
	if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds)) return Number(milliseconds);
	const retryAfter = header('retry-after');
	if (retryAfter === undefined) return undefined;
	if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
	const date = Date.parse(retryAfter);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
