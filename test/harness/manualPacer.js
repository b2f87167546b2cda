'use strict';
/** A Pacer on a fake clock, and the answers the pacer tests give it. */
const { Pacer } = require('../../dist/nodes/shared/transport/pacing/pacer');

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A Pacer on a fake clock: its sleeps end only as the test runs the clock, in order of their end. */
function manualPacer() {
	const clock = { now: NOW };
	const sleeps = [];
	/** Every sleep's ms, in the order asked. */
	const slept = [];
	const pacer = new Pacer({
		now: () => clock.now,
		sleep: (ms, signal) =>
			new Promise((resolve, reject) => {
				const entry = { at: clock.now + ms, resolve };
				slept.push(ms);
				sleeps.push(entry);
				signal?.addEventListener('abort', () => {
					sleeps.splice(sleeps.indexOf(entry), 1);
					reject(signal.reason);
				});
			}),
	});
	const settle = () => new Promise((resolve) => setImmediate(resolve));
	/** Ends the next sleep due by `until`; false when there is none. */
	const step = async (until = Infinity) => {
		await settle();
		sleeps.sort((a, b) => a.at - b.at);
		if (sleeps.length === 0 || sleeps[0].at > until) return false;
		const next = sleeps.shift();
		clock.now = Math.max(clock.now, next.at);
		next.resolve();
		await settle();
		return true;
	};
	/** Runs the clock to `to` (Infinity: to the last sleep's end), every sleep due by then ending in turn. */
	const runTo = async (to) => {
		while (await step(to));
		if (to !== Infinity) clock.now = Math.max(clock.now, to);
	};
	/** acquire() now; `sleptMs`: the wait it began at once (its turn's, or a hold's), if any. */
	const reserve = (options) => {
		const before = slept.length;
		const reserved = { reservedAt: clock.now, settled: false };
		reserved.turn = pacer.acquire(options);
		reserved.sleptMs = slept.length > before ? slept[before] : undefined;
		reserved.due = clock.now + (reserved.sleptMs ?? 0);
		reserved.turn.then(
			() => (reserved.settled = true),
			() => (reserved.settled = true),
		);
		return reserved;
	};
	/** Runs the clock until each reserved turn is given (or refused). */
	const given = async (...reserved) => {
		await settle();
		while (reserved.some((r) => !r.settled))
			if (!(await step())) throw new Error('a turn waits for a place nobody releases');
		return Promise.all(reserved.map((r) => r.turn));
	};
	/** `n` turns reserved at once, each given when due. */
	const take = (n = 1, options) => given(...Array.from({ length: n }, () => reserve(options)));
	return { clock, pacer, slept, settle, runTo, reserve, given, take };
}

/** 100 requests at 200/s, 10 at once, each answered 200 after 25 ms: the latency known, no limit yet. */
async function warmedUp() {
	const env = manualPacer();
	for (let round = 0; round < 10; round++) {
		const turns = await env.take(10);
		for (const turn of turns) expect(turn.waitedMs).toBe(0);
		env.clock.now += 25;
		for (const turn of turns) turn.release({ statusCode: 200, headers: {} });
		env.clock.now += 25;
	}
	return env;
}

const refuse = (turn, retryAfter = '1') =>
	turn.release({
		statusCode: 429,
		headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
	});

module.exports = { NOW, manualPacer, warmedUp, refuse };
