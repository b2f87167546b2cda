import type { Lane } from '../../shared/transport';

/**
 * The run's places for items in progress ("Parallel Requests"). An item whose request waits out a
 * short 429 lends its place to the next item (at most `size` lent at once), and takes one back, before
 * any new item, when its wait ends: the limit is on requests at once, not on items waiting. With one
 * place nothing is lent: items then go strictly in order (Send's default keeps a conversation's order).
 */
export class Lanes implements Lane {
	private free: number;
	private lent = 0;
	private readonly returning: Array<() => void> = [];
	private readonly starting: Array<() => void> = [];

	constructor(private readonly size: number) {
		this.free = size;
	}

	/** A new item's place, once one is free. */
	async take(): Promise<void> {
		await this.acquire(this.starting);
	}

	/** An item's place, back for good. */
	release(): void {
		const next = this.returning.shift() ?? this.starting.shift();
		if (next) next();
		else this.free += 1;
	}

	lend(): boolean {
		if (this.size < 2 || this.lent >= this.size) return false;
		this.lent += 1;
		this.release();
		return true;
	}

	async reclaim(): Promise<void> {
		this.lent -= 1;
		await this.acquire(this.returning);
	}

	private async acquire(queue: Array<() => void>): Promise<void> {
		if (this.free > 0) {
			this.free -= 1;
			return;
		}
		await new Promise<void>((resolve) => queue.push(resolve));
	}
}

/**
 * Runs `task(0..count-1)` in index order, each once a place among `lanes` is free (a number: that many
 * places). When a task fails and `stopOnError` is set, no new task starts; the ones in progress finish,
 * and the error of the lowest failing index is thrown (the same one a sequential loop would throw).
 */
export async function forEachWithConcurrency(
	count: number,
	lanes: number | Lanes,
	task: (index: number) => Promise<void>,
	stopOnError = true,
): Promise<void> {
	const places = typeof lanes === 'number' ? new Lanes(Math.max(1, lanes)) : lanes;
	let failure: { index: number; error: unknown } | undefined;
	const running: Array<Promise<void>> = [];
	for (let index = 0; index < count; index++) {
		await places.take();
		if (stopOnError && failure) {
			places.release();
			break;
		}
		running.push(
			task(index)
				.catch((error: unknown) => {
					if (!failure || index < failure.index) failure = { index, error };
				})
				.finally(() => places.release()),
		);
	}
	await Promise.all(running);
	if (failure) throw failure.error;
}
