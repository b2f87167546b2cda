'use strict';
/**
 * Part 2 of the queue suite: the Messaging Trigger on the main while messages arrive in bursts, with faults at the
 * service, through graceful restarts and SIGKILLs of the main and of a worker; the figures and their checks.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { waitFor } = require('../lib/wait');
const wf = require('./workflows');
const { tally, orderViolations } = require('./tally');
const { killAfterPoll } = require('./polls');
const {
	OPTIONS,
	TRIGGER,
	PLAN,
	POLL_FAULTS,
	DEAD_WORKER_SETTLE_MS,
	sleep,
	say,
	between,
	check,
} = require('./setting');

async function triggerThroughFaults({
	mainProcess,
	workers,
	executions,
	service,
	faulty,
	inbox,
	sink,
	polls,
	report,
}) {
	const created = [];
	let phase = 'graceful';
	let producing = true;
	let lastCreatedAt = Date.now();
	const burst = (size) => {
		for (let n = 0; n < size; n++) {
			const message = faulty.store.sendMessage('ct_ann', {
				conversation_id: inbox,
				message: `m ${phase} ${created.length}`,
			});
			created.push({ id: message.id, phase });
		}
		lastCreatedAt = Date.now();
	};
	// Bursts larger than the trigger's page, a few seconds apart, until the drain.
	const producer = (async () => {
		while (producing) {
			burst(Math.round(between(5, 2.5 * wf.TRIGGER_PAGE_SIZE)));
			await sleep(between(2000, 5000));
		}
	})();
	const executionsAt = () =>
		Object.fromEntries(workers.map((w) => [w.name, executions.get(w.name).started.size]));
	const phaseStart = { graceful: executionsAt() };
	faulty.set({ faults: { ...POLL_FAULTS, seed: OPTIONS.seed } });
	say(
		`trigger v${OPTIONS.triggerVersion}: stream started (bursts of 5-${2.5 * wf.TRIGGER_PAGE_SIZE} messages, page ${wf.TRIGGER_PAGE_SIZE}); faults at the service: ${JSON.stringify(POLL_FAULTS)}`,
	);
	// The longest silence of a running trigger: its backoff when injected faults fail a few checks in a row.
	const checkWindow = TRIGGER.checkEveryMs + 150_000;

	for (let i = 1; i <= PLAN.graceful; i++) {
		await sleep(between(1000, 6000));
		const at = Date.now();
		await mainProcess.terminate();
		const stoppedMs = Date.now() - at;
		await mainProcess.start();
		await polls.pollAfter(at, checkWindow);
		report.faults.push({
			kind: 'graceful',
			detail: `SIGTERM, n8n stopped in ${stoppedMs} ms`,
		});
		say(
			`graceful restart ${i}/${PLAN.graceful}: main stopped in ${stoppedMs} ms, restarted, polled`,
		);
	}

	// What the executions recorded through the graceful restarts, once the last restart's first check ran.
	await sleep(5000);
	const seenAfterGraceful = seenRecords(service, sink);

	phase = 'main-kill';
	phaseStart['main-kill'] = executionsAt();
	for (const [i, kind] of PLAN.kills.entries()) {
		let detail;
		if (kind === 'random') {
			if (!mainProcess.running) await mainProcess.start();
			await sleep(between(0, 10_000));
			const sinceLast = performance.now() - polls.last;
			await mainProcess.kill();
			detail = `random moment, ${sinceLast.toFixed(0)} ms after the trigger's last request`;
		} else {
			// Aimed: armed before n8n starts (it polls at activation), fires delayMs after a poll's last request.
			const delayMs = Math.round(between(0, 50));
			const fired = killAfterPoll(mainProcess, polls, delayMs, checkWindow);
			if (!mainProcess.running) {
				await mainProcess.start().catch((error) => {
					if (mainProcess.running) throw error; // else: killed while starting, as intended
				});
			}
			const measured = await fired;
			detail = `aimed ${delayMs} ms after a poll's last request, killed ${measured.gap.toFixed(1)} ms after it, ${(measured.afterMs / 1000).toFixed(0)} s after the start began`;
		}
		report.faults.push({ kind: 'main-kill', detail });
		say(`main SIGKILL ${i + 1}/${PLAN.kills.length}: ${detail}`);
	}
	const restartedAt = Date.now();
	await mainProcess.start();
	const firstPoll = await polls.pollAfter(restartedAt, checkWindow);
	say(
		`main started after the kills; first poll ${((firstPoll - restartedAt) / 1000).toFixed(0)} s after the start began; ${polls.asked(restartedAt)}`,
	);

	phase = 'worker-kill';
	phaseStart['worker-kill'] = executionsAt();
	for (let i = 0; i < PLAN.workerKills; i++) {
		// Slower deliveries at the sink so a big execution is surely still running when the worker dies.
		service.set({ latencyMs: 15 });
		const burstAt = Date.now();
		burst(8 * wf.TRIGGER_PAGE_SIZE);
		const victim = await new Promise((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error('no trigger execution started on a worker after the burst')),
				checkWindow + 30_000,
			);
			for (const w of workers) {
				const off = w.onLine((line) => {
					const m = /Worker started execution (\d+)/.exec(line);
					// The first execution started by a poll that read the burst.
					if (m && polls.times.some((t) => t >= burstAt)) {
						clearTimeout(timer);
						off();
						resolve({ worker: w, execution: m[1] });
					}
				});
			}
		});
		await sleep(between(200, 600));
		const finishedAlready = executions.get(victim.worker.name).finished.has(victim.execution);
		await victim.worker.kill();
		// Its unfinished executions will never report back from this process.
		const e = executions.get(victim.worker.name);
		for (const id of e.started.keys()) e.finished.add(id);
		const detail = `${victim.worker.name} SIGKILLed while running execution ${victim.execution}${finishedAlready ? ' (it had just finished)' : ''}`;
		report.faults.push({ kind: 'worker-kill', detail });
		say(`${detail}; restarting it`);
		await victim.worker.start();
		service.set({ latencyMs: 0 });
	}

	phase = 'drain';
	producing = false;
	await producer;
	say(
		`stream stopped: ${created.length} messages created; waiting for the last poll and executions`,
	);
	const settleFrom = lastCreatedAt;
	await polls.pollAfter(settleFrom + 100, checkWindow + 30_000);
	// Until the sink is quiet, every running execution finished, and a crashed job had its lock expire.
	let lastCount = -1;
	let quietSince = Date.now();
	await waitFor(
		'the deliveries to settle',
		() => {
			const count = seenRecords(service, sink).length;
			if (count !== lastCount) {
				lastCount = count;
				quietSince = Date.now();
			}
			const running = workers.flatMap((w) => {
				const e = executions.get(w.name);
				return w.running ? [...e.started.keys()].filter((id) => !e.finished.has(id)) : [];
			});
			if (running.length > 0) return false;
			// Everything arrived; or nothing moved for longer than a dead worker's job takes to fail (its lock,
			// then the stalled check) plus the trigger's next checks, which emit its messages again.
			const allSeen = new Set(seenRecords(service, sink).map((r) => r.id));
			if (created.every((m) => allSeen.has(m.id))) return Date.now() - quietSince > 3_000;
			return Date.now() - quietSince > DEAD_WORKER_SETTLE_MS + 2 * TRIGGER.checkEveryMs;
		},
		TRIGGER.checkEveryMs + 180_000,
		{ intervalMs: 500 },
	);
	faulty.set({ faults: {} });
	phaseStart.end = executionsAt();

	// ---- figures ----
	const seen = seenRecords(service, sink);
	const counted = tally(created, seen);
	const order = orderViolations(seen);
	const perWorker = workers
		.map((w) => `${w.name} ${executions.get(w.name).started.size - phaseStart.graceful[w.name]}`)
		.join(', ');
	console.log(
		`\nqueue: trigger v${OPTIONS.triggerVersion}${OPTIONS.durableCursors ? ' with durable poll cursors' : ''}: created / delivered / lost / duplicated (extra deliveries, of which marked redelivery)`,
	);
	const fmt = (r) =>
		`${r.phase.padEnd(12)} ${String(r.created).padStart(5)} ${String(r.delivered).padStart(9)} ${String(r.lost).padStart(5)} ${String(r.duplicated).padStart(10)}  (${r.extraDeliveries}, ${r.markedRedeliveries} marked)`;
	console.log(`  ${'fault kind'.padEnd(12)} created delivered  lost duplicated`);
	for (const r of counted.phases) console.log(`  ${fmt(r)}`);
	console.log(`  ${fmt({ ...counted.total, phase: 'all' })}`);
	console.log(
		`  faults: ${report.faults.map((f) => `${f.kind}: ${f.detail}`).join('\n          ')}`,
	);
	console.log(
		`  trigger executions per worker: ${perWorker}; executions with deliveries: ${order.executions}; polls (list requests) ${polls.times.length}; service faults injected ${faulty.stats.faults}`,
	);
	if (counted.lostIds.length > 0)
		console.log(`  lost, first ids: ${counted.lostIds.slice(0, 10).join(', ')}`);
	for (const [path, count] of counted.repeatedIn)
		console.log(`  delivered again: ${count} message(s) by executions ${path}`);
	console.log('');

	await check(
		'the triggered workflow ran on the workers and recorded deliveries at the service, only of created messages',
		() => {
			assert.ok(counted.total.delivered > 0, 'no delivery reached the sink');
			assert.deepEqual(counted.unknownIds, [], 'the sink names messages that were never created');
		},
	);
	await check(
		'every start of the main activated the trigger (n8n logged no failed activation)',
		() => {
			const log = fs.readFileSync(mainProcess.logFile, 'utf8');
			const failed = log
				.split('\n')
				.filter((line) => /failed to activate|partially published/i.test(line));
			assert.deepEqual(failed, []);
		},
	);
	await check('oldest first within each execution', () => {
		assert.deepEqual(order.violations.slice(0, 3), []);
	});
	await check(
		`trigger executions ran on the workers${OPTIONS.triggerVersion >= 2 ? ', both of them' : ''}`,
		() => {
			const counts = workers.map(
				(w) => executions.get(w.name).started.size - phaseStart.graceful[w.name],
			);
			assert.ok(counts.reduce((a, b) => a + b, 0) > 0, 'no trigger execution started on a worker');
			// v1 polls once a minute (and at activation): a handful of executions, which may all land on one worker.
			if (OPTIONS.triggerVersion >= 2)
				for (const [i, count] of counts.entries())
					assert.ok(count > 0, `${workers[i].name} ran no trigger execution`);
		},
	);
	if (OPTIONS.triggerVersion >= 2) {
		await check(
			'every created message delivered (0 lost) through restarts, SIGKILLs of the main and of a worker',
			() => {
				if (counted.total.lost === 0) return;
				// What the trigger said, across the main's restarts, to tell a spent delivery from a stuck one.
				const said = fs
					.readFileSync(mainProcess.logFile, 'utf8')
					.split('\n')
					.filter((line) =>
						/Messaging Trigger|not delivered|Scheduled execution skipped/.test(line),
					);
				assert.fail(
					`lost: ${counted.lostIds.slice(0, 20).join(', ')}\n` +
						`the trigger's log lines (last 30 of ${said.length}):\n  ${said.slice(-30).join('\n  ')}`,
				);
			},
		);
		await check(
			'graceful restarts redeliver nothing: the stop waited for its executions and saved their end',
			() => {
				const redelivered = seenAfterGraceful.filter((r) => r.redelivery);
				assert.deepEqual(
					redelivered.map((r) => `${r.id} x${r.execution} a${r.attempt} ${r.reason}`).slice(0, 20),
					[],
				);
			},
		);
		await check(
			'every redelivery says why: the last attempt failed, or its outcome is unknown to a trigger',
			() => {
				const reasons = new Map();
				for (const r of seen.filter((s) => s.redelivery))
					reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
				console.log(`  redeliveries by reason: ${JSON.stringify(Object.fromEntries(reasons))}`);
				for (const reason of reasons.keys())
					assert.ok(
						['previousAttemptFailed', 'previousOutcomeUnknown'].includes(reason),
						`reason ${reason}`,
					);
			},
		);
		await check('every message delivered twice is marked redelivery: true', () => {
			assert.equal(
				counted.total.unmarkedDuplicates,
				0,
				`unmarked: ${counted.unmarkedIds.slice(0, 20).join(', ')}`,
			);
		});
	} else {
		console.log(
			`queue: trigger v1 is measured, not judged (it advances its state when it lists): lost ${counted.total.lost}, duplicated ${counted.total.duplicated}`,
		);
	}
}

function seenRecords(service, sink) {
	return service.store
		.listMessages({ conversation_id: sink })
		.sort((a, b) => (a.id < b.id ? -1 : 1))
		.map((m) => wf.parseSeen(m.message))
		.filter(Boolean);
}

module.exports = { triggerThroughFaults, seenRecords };
