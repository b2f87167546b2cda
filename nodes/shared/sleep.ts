import { sleep } from 'n8n-workflow';

/**
 * Waits `ms`, or less when `signal` aborts (a cancelled execution, a deactivated trigger); false when it
 * aborted. n8n-workflow's own sleep honours the signal only from 2.34: racing the signal keeps a cancel
 * from waiting out the whole time on older versions.
 */
export async function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<boolean> {
	if (signal?.aborted) return false;
	if (!signal) {
		await sleep(ms);
		return true;
	}
	let onAbort: () => void = () => {};
	const aborted = new Promise<void>((resolve) => {
		onAbort = resolve;
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		// sleep() rejects only when the signal fires
		await Promise.race([sleep(ms, signal).catch(() => {}), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
	return !signal.aborted;
}
