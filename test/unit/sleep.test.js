'use strict';
/** The one cancellable sleep (Send and Wait for Reply's checks): it ends when the execution is cancelled. */
const path = require('node:path');

const SLEEP = path.join(__dirname, '..', '..', 'dist', 'nodes', 'shared', 'sleep.js');

/** n8n-workflow's sleep before 2.34: it takes a signal and ignores it. */
function withSleepIgnoringSignal() {
	jest.resetModules();
	jest.doMock('n8n-workflow', () => ({
		.../** @type {object} */ (jest.requireActual('n8n-workflow')),
		sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
	}));
	return require(SLEEP).sleepUnlessAborted;
}

afterEach(() => jest.dontMock('n8n-workflow'));

test('the whole time passes: true; aborted before: false at once', async () => {
	jest.resetModules();
	const { sleepUnlessAborted } = require(SLEEP);
	const started = Date.now();
	expect(await sleepUnlessAborted(30, new AbortController().signal)).toBe(true);
	expect(await sleepUnlessAborted(30)).toBe(true);
	expect(Date.now() - started).toBeGreaterThanOrEqual(55);
	const stopped = new AbortController();
	stopped.abort();
	const at = Date.now();
	expect(await sleepUnlessAborted(60_000, stopped.signal)).toBe(false);
	expect(Date.now() - at).toBeLessThan(50);
});

test.each([
	['this n8n', () => (jest.resetModules(), require(SLEEP).sleepUnlessAborted)],
	['n8n before 2.34, whose sleep ignores the signal', withSleepIgnoringSignal],
])('%s: a cancel during the sleep ends it at once, false', async (_, load) => {
	const sleepUnlessAborted = load();
	const cancel = new AbortController();
	setTimeout(() => cancel.abort(), 20);
	const started = Date.now();
	expect(await sleepUnlessAborted(60_000, cancel.signal)).toBe(false);
	expect(Date.now() - started).toBeLessThan(1_000);
});
