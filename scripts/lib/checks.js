'use strict';
/**
 * The named checks of a suite that drives real processes (e2e, queue): each check prints `ok` or
 * `FAIL` with the start of its stack, and the suite ends with the plain closing line CI reads,
 * `<label>: N passed, N failed`.
 */
function createChecks(label, { stackLines = 12, timed = false } = {}) {
	const results = { passed: 0, failed: 0 };
	const started = Date.now();
	const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

	/** Runs one check; returns whether it passed. */
	async function check(name, fn) {
		try {
			await fn();
			results.passed += 1;
			console.log(`  ok  ${name}${timed ? ` (${elapsed()})` : ''}`);
			return true;
		} catch (error) {
			results.failed += 1;
			const stack = String(error.stack ?? error)
				.split('\n')
				.slice(0, stackLines)
				.map((l) => `       ${l}`)
				.join('\n');
			console.log(`  FAIL ${name}\n${stack}`);
			return false;
		}
	}

	/** The closing lines of a suite that ran to its end. */
	function finish() {
		console.log(`${label}: finished in ${elapsed()}`);
		console.log(`${label}: ${results.passed} passed, ${results.failed} failed`);
		process.exitCode = results.failed > 0 ? 1 : 0;
	}

	/** The closing lines of a suite that could not run to its end: that counts as one more failure. */
	function abort(error) {
		console.error(`${label}: could not run: ${error?.stack ?? error}`);
		console.log(`${label}: ${results.passed} passed, ${results.failed + 1} failed`);
		process.exit(1);
	}

	return { check, elapsed, finish, abort };
}

module.exports = { createChecks };
