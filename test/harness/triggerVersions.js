'use strict';
/**
 * One interface over both trigger versions, so the same guarantees are asserted for each:
 * `check()` is version 1's poll() (through PollContext) or one scheduled check of version 2 (through
 * TriggerContext, its executions ending successfully); it returns the items of the executions it
 * started (null: none) and throws what a failed check reported.
 */
const { createPollingTrigger, createTriggerHost } = require('./n8n');

/** @param {{ parameters?: object, credentials: object }} options */
function pollingVersion({ parameters = {}, credentials }) {
	const trigger = createPollingTrigger({ parameters, credentials });
	return {
		version: 1,
		check: () => trigger.poll(),
		fetchTestEvent: () => trigger.poll('manual'),
		state: () => /** @type {Record<string, any> | undefined} */ (trigger.state())?.state,
		async stop() {},
	};
}

/** @param {{ parameters?: object, credentials: object }} options */
function triggerVersion({ parameters = {}, credentials }) {
	const host = createTriggerHost({
		credentials,
		parameters: { interval: 5, unit: 'seconds', ...parameters },
	});
	let started = false;
	let seen = 0;
	let logged = 0;
	return {
		version: 2,
		host,
		async check() {
			if (!started) {
				started = true;
				await host.start();
			} else {
				await host.tick();
			}
			const failure = host.logs
				.slice(logged)
				.find((line) => line.startsWith('warn: Messaging Trigger: check failed'));
			logged = host.logs.length;
			const fresh = host.executions.slice(seen);
			seen = host.executions.length;
			for (const execution of fresh) execution.end('success');
			if (failure)
				throw new Error(
					failure.replace(
						/^warn: Messaging Trigger: check failed \(\d+ in a row\), next check in \d+ s: /,
						'',
					),
				);
			return fresh.length === 0 ? null : [fresh.flatMap((e) => e.items)];
		},
		state: () => host.state()?.state,
		async stop() {
			if (host.process) await host.stop();
		},
	};
}

/**
 * Each version's name and maker, for `describe.each`.
 * @type {Array<[string, typeof pollingVersion | typeof triggerVersion]>}
 */
const VERSIONS = [
	['v1 (polling)', pollingVersion],
	['v2 (trigger)', triggerVersion],
];

module.exports = { VERSIONS, pollingVersion, triggerVersion };
