/**
 * Runs `task(0..count-1)` with at most `limit` in flight, starting them in index order.
 * When a task fails and `stopOnError` is set, no new task starts; the ones in flight finish,
 * and the error of the lowest failing index is thrown (the same one a sequential loop would throw).
 */
export async function forEachWithConcurrency(
	count: number,
	limit: number,
	task: (index: number) => Promise<void>,
	stopOnError = true,
): Promise<void> {
	let next = 0;
	let failure: { index: number; error: unknown } | undefined;
	const worker = async () => {
		while (next < count && !(stopOnError && failure)) {
			const index = next++;
			try {
				await task(index);
			} catch (error) {
				if (!failure || index < failure.index) failure = { index, error };
			}
		}
	};
	const workers = Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker);
	await Promise.all(workers);
	if (failure) throw failure.error;
}
