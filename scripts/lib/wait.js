'use strict';

/**
 * Polls `predicate` (which may be async) until it returns something truthy and resolves to that; rejects after `timeoutMs`
 * with an error naming `what` it waited for.
 */
async function waitFor(what, predicate, timeoutMs, { intervalMs = 250 } = {}) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const value = await predicate();
		if (value) return value;
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
	throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}

module.exports = { waitFor };
