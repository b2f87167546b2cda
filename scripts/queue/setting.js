'use strict';
/**
 * The queue suite's setting, one instance shared by its parts: the options (see run.js), the plan, n8n's timings
 * shortened for the run, the seeded randomness and the named checks.
 */
const path = require('node:path');
const n8n = require('../lib/n8n');
const { createChecks } = require('../lib/checks');
const { mulberry32 } = require('../../sandbox/faults');
const wf = require('./workflows');

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
	const at = argv.indexOf(name);
	return at === -1 ? undefined : argv[at + 1];
};
const OPTIONS = {
	triggerVersion: Number(value('--trigger-version') ?? process.env.QUEUE_TRIGGER_VERSION ?? 2),
	quick: flag('--quick') || process.env.QUEUE_QUICK === '1',
	durableCursors: flag('--durable-cursors') || process.env.QUEUE_DURABLE_CURSORS === '1',
	breakWorker: flag('--break-worker'),
	seed: Number(value('--seed') ?? process.env.QUEUE_SEED ?? Date.now() % 100_000),
};
if (!wf.TRIGGER_VERSIONS[OPTIONS.triggerVersion]) {
	console.error(
		`queue: unknown --trigger-version ${OPTIONS.triggerVersion} (known: ${Object.keys(wf.TRIGGER_VERSIONS).join(', ')})`,
	);
	process.exit(2);
}
const TRIGGER = wf.TRIGGER_VERSIONS[OPTIONS.triggerVersion];
const PLAN = OPTIONS.quick
	? {
			messageCalls: 3,
			conversationCalls: 3,
			graceful: 1,
			kills: ['random', 'aimed'],
			workerKills: 1,
		}
	: {
			messageCalls: 10,
			conversationCalls: 10,
			graceful: 3,
			kills: ['random', 'aimed', 'aimed', 'random', 'aimed'],
			workerKills: 1,
		};

/** The longest a restarted trigger may stay busy before its first poll (reading lost deliveries again). */
const MAX_BUSY_MS = 10 * 60_000;
/** Faults at the service the trigger polls (the delivery log's service has none: its POSTs are not retried). */
const POLL_FAULTS = {
	rate429: 0.06,
	rate503: 0.05,
	rate500: 0.01,
	rateDrop: 0.04,
	retryAfterSeconds: 0,
};
/** Shorter than n8n's defaults (60 s lock, 30 s stalled check), so a dead worker's job is noticed within the run. */
const WORKER_LOCK = {
	QUEUE_WORKER_LOCK_DURATION: '15000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '3000',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};
/** How long a dead worker's job takes to fail with these settings: its lock, then the stalled check, and a margin. */
const DEAD_WORKER_SETTLE_MS = 15_000 + 5_000 + 5_000;
/**
 * n8n activates triggers through its publication outbox; a main killed while processing a record holds
 * its lease (120 s by default), and the next main activates nothing until it expires. Shorter here.
 */
const PUBLICATION_LEASE = {
	N8N_WORKFLOW_PUBLICATION_OUTBOX_LEASE_SECONDS: '20',
	N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '2000',
};
const DURABLE_CURSORS = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
};

const WORK = path.join(n8n.ROOT, '.queue');
const TOKEN = 'queue-token-7c1e';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const say = (text) => console.log(`queue: ${text} (${elapsed()})`);

const random = mulberry32(OPTIONS.seed);
const between = (low, high) => low + random() * (high - low);

const { check, elapsed, finish, abort } = createChecks('queue', { stackLines: 30 });

module.exports = {
	OPTIONS,
	TRIGGER,
	PLAN,
	MAX_BUSY_MS,
	POLL_FAULTS,
	WORKER_LOCK,
	DEAD_WORKER_SETTLE_MS,
	PUBLICATION_LEASE,
	DURABLE_CURSORS,
	WORK,
	TOKEN,
	sleep,
	say,
	between,
	check,
	elapsed,
	finish,
	abort,
};
