'use strict';
/**
 * Several version 2 triggers on one credential in one simulated n8n process (test/harness/n8n.js), on
 * jest's fake clock, against a sandbox on loopback: start them, run fake time, record when each request
 * reached the service. Used by the tests of the account's shared pace and shared listings.
 */
const { createTriggerHost } = require('./n8n');

function createTriggerGroup({ sandbox, credentials }) {
	const group = {
		hosts: [],
		/** The fake time each request reached the service, in the order of sandbox.requests. */
		requestTimes: [],
	};

	/** Lets loopback requests and their answers go through before fake time moves on. */
	group.quiet = async () => {
		const progress = () =>
			sandbox.stats.requests +
			sandbox.stats.inFlight +
			group.hosts.reduce((n, h) => n + h.checksDone + h.executions.length, 0);
		for (let still = 0, last = progress(); still < 200; still++) {
			await new Promise((resolve) => setImmediate(resolve));
			while (group.requestTimes.length < sandbox.requests.length)
				group.requestTimes.push(Date.now());
			if (progress() !== last) [still, last] = [0, progress()];
		}
	};

	/** Runs fake time for `ms`, from timer to timer. */
	group.runFor = async (ms) => {
		const end = Date.now() + ms;
		while (Date.now() < end) {
			await group.quiet();
			if (jest.getTimerCount() === 0) break;
			await jest.advanceTimersToNextTimerAsync();
		}
		await group.quiet();
	};

	/** Activates `host` in the group's process; an activation's first check may wait (a 429): time moves meanwhile. */
	group.activate = async (host, options = {}) => {
		const first = group.hosts.find((h) => h !== host && h.triggerType);
		if (first) host.triggerType = first.triggerType; // the package loaded once, as in one n8n process
		let started = false;
		const starting = host
			.start({ ...options, sameProcess: !!first })
			.finally(() => (started = true));
		while (!started) {
			await group.quiet();
			if (!started && jest.getTimerCount() > 0) await jest.advanceTimersToNextTimerAsync();
		}
		await starting;
		if (!group.hosts.includes(host)) group.hosts.push(host);
		return host;
	};

	/** A trigger on the group's credential with `parameters`, in a workflow of its own (not activated). */
	group.hostFor = (parameters) =>
		createTriggerHost({ credentials, workflowId: `wf-${created++}`, parameters });
	let created = 0;

	/** `count` triggers, the parameters of the i-th from `parametersOf(i)`, activated one after the other. */
	group.start = async (count, parametersOf) => {
		for (let i = 0; i < count; i++) await group.activate(group.hostFor(parametersOf(i)));
	};

	/**
	 * The process dies with every trigger in it: the executions still running die with it (n8n marks them
	 * crashed; nobody tells the triggers). A new process activates again those that were active, in order.
	 */
	group.crashAll = async () => {
		const active = group.hosts.filter((host) => host.process);
		for (const host of active) await host.crash();
		for (const host of group.hosts) {
			for (const e of host.executions) if (e.status === 'running') e.status = 'crashed';
			host.triggerType = undefined;
		}
		for (const host of active) await group.activate(host);
	};

	group.stopAll = async () => {
		for (const host of group.hosts) if (host.process) await host.stop();
	};
	return group;
}

module.exports = { createTriggerGroup };
