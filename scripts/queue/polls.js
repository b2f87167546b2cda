'use strict';
/** The trigger's polls as the faulty service sees them, and a SIGKILL of the main aimed just after one. */
const { waitFor } = require('../lib/wait');
const { MAX_BUSY_MS } = require('./setting');

/**
 * Watches the trigger's requests at the faulty service: when each list request came, who wants to know, and
 * what else it asked (after a crash it reads the lost deliveries again, one request per message, before it lists).
 */
function watchPolls(faulty, inbox) {
	const watch = {
		times: [],
		listeners: new Set(),
		last: 0,
		lastAny: performance.now(),
		requests: [],
	};
	const push = Array.prototype.push;
	faulty.requests.push = function (...records) {
		for (const record of records) {
			watch.lastAny = performance.now();
			watch.requests.push({ at: Date.now(), record });
			if (
				record.method === 'GET' &&
				record.path === '/v1/messages' &&
				record.query.includes(inbox)
			) {
				watch.last = performance.now();
				watch.times.push(Date.now());
				for (const fn of [...watch.listeners]) fn(record);
			}
		}
		return push.apply(this, records);
	};
	/** What the trigger asked the service since `since` (ms epoch). */
	watch.asked = (since) => {
		const counts = {};
		for (const { at, record } of watch.requests) {
			if (at < since) continue;
			const path = record.path.replace(/\/(msg|conv|ct)_[^/]+/g, '/:id');
			const kind = `${record.method} ${path} ${record.status || 'no answer'}`;
			counts[kind] = (counts[kind] ?? 0) + 1;
		}
		return `requests at the polled service since then: ${JSON.stringify(counts)}`;
	};
	/**
	 * Rejects once the service has heard nothing at all for `silentMs` (a stuck trigger; a trigger that is
	 * busy reading lost deliveries again is not), or after MAX_BUSY_MS in all. `stop()` ends the watch.
	 */
	watch.silence = (since, silentMs, what) => {
		let timer;
		const failed = new Promise((_, reject) => {
			const startedAt = performance.now();
			timer = setInterval(() => {
				const now = performance.now();
				const silent = now - Math.max(startedAt, watch.lastAny);
				if (silent < silentMs && now - startedAt < MAX_BUSY_MS) return;
				clearInterval(timer);
				reject(
					new Error(
						`${what} within ${Math.round((now - startedAt) / 1000)} s; ${watch.asked(since)}`,
					),
				);
			}, 250);
		});
		return { failed, stop: () => clearInterval(timer) };
	};
	/** Resolves when a poll that began after `since` (ms epoch) has been quiet for `quietMs`. */
	watch.pollAfter = async (since, silentMs, quietMs = 800) => {
		const silence = watch.silence(since, silentMs, 'no poll of the trigger');
		try {
			await Promise.race([
				silence.failed,
				waitFor('a poll of the trigger', () => watch.times.some((t) => t >= since), MAX_BUSY_MS, {
					intervalMs: 100,
				}),
			]);
		} finally {
			silence.stop();
		}
		await waitFor('the poll to end', () => performance.now() - watch.last >= quietMs, 60_000, {
			intervalMs: 50,
		});
		return watch.times.filter((t) => t >= since)[0];
	};
	return watch;
}

/** Kills the main `delayMs` after the last request of the next poll; resolves with the measured gap and when. */
function killAfterPoll(mainProcess, polls, delayMs, silentMs) {
	const armedAt = Date.now();
	return new Promise((resolve, reject) => {
		let timer;
		const silence = polls.silence(armedAt, silentMs, 'the main did not poll after starting');
		const fire = () => {
			const gap = performance.now() - polls.last;
			polls.listeners.delete(onRequest);
			silence.stop();
			mainProcess.signalGroup('SIGKILL');
			mainProcess.exited.then(() => resolve({ gap, afterMs: Date.now() - armedAt }));
		};
		const onRequest = () => {
			clearTimeout(timer);
			timer = setTimeout(fire, delayMs);
		};
		silence.failed.catch((error) => {
			polls.listeners.delete(onRequest);
			reject(new Error(`${error.message}\n${mainProcess.lastLines()}`));
		});
		polls.listeners.add(onRequest);
	});
}

module.exports = { watchPolls, killAfterPoll };
