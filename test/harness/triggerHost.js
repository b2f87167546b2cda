'use strict';
/** A trigger() version active in a simulated n8n, process by process (createTriggerHost). */
const { additionalData } = require('./n8nCore');
const {
	NodeOperationError,
	ManualExecutionCancelledError,
	SystemShutdownExecutionCancelledError,
	Workflow,
} = require('n8n-workflow');
const {
	ObservedTriggerContext,
	Container,
	TriggersAndPollers,
	versionedNodeTypes,
	loadTriggerInNewProcess,
	triggerNode,
} = require('./n8nTrigger');

/**
 * A trigger() version of the Messaging Trigger active in a simulated n8n: each "process" loads the
 * node afresh and gets n8n-core's TriggerContext with an emit that does what n8n's does (save the
 * static data, then start an execution unless one with the same deduplication key exists, in which
 * case donePromise resolves with nothing). The test decides how each execution ends, and can stop,
 * crash and restart the process; only what was saved survives a restart.
 *
 * Time is jest's fake clock (setTimeout only): `tick()` runs the next timer and waits until the
 * trigger has scheduled another one, i.e. until the check it started is over.
 */
function createTriggerHost({
	parameters = {},
	credentials,
	typeVersion = 2,
	workflowId = 'wf-trigger',
}) {
	const node = triggerNode(typeVersion, parameters);
	const workflowData = {
		id: workflowId,
		name: 'trigger',
		nodes: [node],
		connections: {},
		active: true,
		settings: {},
	};
	const host = {
		/** What n8n's database holds: the static data as last saved. */
		saved: {},
		saves: 0,
		/** Every execution started: { items, json, key, processNumber, startedAt, end(kind) }. */
		executions: [],
		/** Emits dropped because an execution with their key existed. */
		duplicates: [],
		/** Errors the trigger reported through saveFailedExecution. */
		reported: [],
		emitErrors: [],
		/** What the trigger logged (not debug). */
		logs: [],
		checksDone: 0,
		checksStarted: 0,
		process: null,
		processes: 0,
	};
	const keys = new Set();

	const save = (proc) => {
		if (!proc.alive) return;
		const staticData = proc.workflow.staticData;
		if (staticData.__dataChanged !== true) return;
		const copy = JSON.parse(JSON.stringify(staticData));
		delete copy.__dataChanged;
		host.saved = copy;
		host.saves += 1;
		staticData.__dataChanged = false;
	};

	/**
	 * Activates the trigger, by default in a new process (`sameProcess`: n8n re-activating a saved workflow).
	 * `dieAtEmit`: the process is killed at its first emit, after n8n started saving static data and before
	 * it created the execution (also settable later as `host.process.dieAtEmit`). `keylessEmit`: an emit of
	 * three parameters that drops the deduplication key, as n8n before 2.20 has it.
	 * @param {{ activation?: import('n8n-workflow').WorkflowActivateMode, sameProcess?: boolean, dieAtEmit?: boolean, keylessEmit?: boolean }} [options]
	 */
	host.start = async ({
		activation = 'init',
		sameProcess = false,
		dieAtEmit = false,
		keylessEmit = false,
	} = {}) => {
		const checksBefore = host.checksDone; // the first check runs during activation
		const triggerType = sameProcess ? host.triggerType : loadTriggerInNewProcess();
		host.triggerType = triggerType;
		const types = versionedNodeTypes(triggerType);
		const workflow = new Workflow({
			...workflowData,
			nodeTypes: types,
			staticData: JSON.parse(JSON.stringify(host.saved)),
		});
		const proc = { workflow, alive: true, dieAtEmit, number: ++host.processes };
		const emit = (data, responsePromise, donePromise, deduplicationKey) => {
			if (!proc.alive) return;
			save(proc); // n8n starts saving static data (not awaited) before it creates the execution
			if (proc.dieAtEmit) {
				proc.alive = false;
				return;
			}
			if (deduplicationKey !== undefined && keys.has(deduplicationKey)) {
				host.duplicates.push(deduplicationKey);
				void Promise.resolve().then(() => donePromise?.resolve(undefined));
				return;
			}
			if (deduplicationKey !== undefined) keys.add(deduplicationKey);
			const execution = {
				items: data[0],
				json: data[0].map((item) => item.json),
				key: deduplicationKey,
				processNumber: proc.number,
				startedAt: Date.now(),
				status: 'running',
				end(kind) {
					execution.status = kind;
					if (!donePromise) return;
					if (kind === 'success')
						donePromise.resolve({
							status: 'success',
							finished: true,
							data: { resultData: { runData: {} } },
						});
					else if (kind === 'nodeError')
						donePromise.resolve({
							status: 'error',
							finished: false,
							data: {
								resultData: {
									error: new NodeOperationError(proc.workflow.getNode(node.name), 'A node failed'),
									runData: {},
								},
							},
						});
					else if (kind === 'crashed')
						donePromise.resolve({
							status: 'crashed',
							finished: false,
							data: {
								resultData: {
									error: {
										name: 'WorkflowCrashedError',
										message: 'Workflow did not finish, possible out-of-memory issue',
									},
									runData: {},
								},
							},
						});
					else if (kind === 'workerKilled')
						donePromise.resolve({
							status: 'error',
							finished: false,
							data: {
								resultData: {
									error: {
										message:
											'This execution failed to be processed too many times and will no longer retry.',
									},
									runData: {},
								},
							},
						});
					else if (kind === 'notStarted')
						donePromise.reject(new Error('Could not create the execution'));
					else if (kind === 'shutdown')
						donePromise.reject(new SystemShutdownExecutionCancelledError('1'));
					else if (kind === 'stopped') donePromise.reject(new ManualExecutionCancelledError('1'));
					else throw new Error(`unknown end ${kind}`);
				},
			};
			host.executions.push(execution);
		};
		const emitError = (error) => host.emitErrors.push(error);
		const saveFailedExecution = (error) => host.reported.push(error);
		const data = additionalData(credentials, workflowData);
		const context = new ObservedTriggerContext(
			workflow,
			workflow.getNode(node.name),
			data,
			'trigger',
			activation,
			emit,
			emitError,
			saveFailedExecution,
		);
		if (keylessEmit) {
			const keyed = context.emit.bind(context);
			/** @type {{ emit: Function }} */ (context).emit = (items, responsePromise, donePromise) =>
				keyed(items, responsePromise, donePromise);
		}
		context.onLog = (level, message) => {
			if (level === 'debug' && message.startsWith('Messaging Trigger: next check in'))
				host.checksDone += 1;
			if (level !== 'debug') host.logs.push(`${level}: ${message}`);
		};
		proc.response = await Container.get(TriggersAndPollers).runTriggerFunction(
			workflow,
			workflow.getNode(node.name),
			() => context,
			data,
			'trigger',
			activation,
		);
		save(proc); // and saves it, awaited, at the end of activation
		host.activatedAt = Date.now();
		host.process = proc;
		await host.idle(checksBefore);
		return host;
	};

	/**
	 * Graceful: n8n calls closeFunction (and saves nothing itself); running executions may still end,
	 * also while closeFunction waits for them (time moves on when nothing else does).
	 */
	host.stop = async () => {
		const proc = host.process;
		host.process = null;
		let closed = false;
		const closing = Promise.resolve(proc.response?.closeFunction?.()).finally(() => {
			closed = true;
		});
		for (let still = 0; !closed; still++) {
			if (still > 200 && jest.getTimerCount() > 0) {
				still = 0;
				await jest.advanceTimersToNextTimerAsync();
			}
			await new Promise((resolve) => setImmediate(resolve));
		}
		await closing;
		proc.alive = false;
	};

	/** The process dies: nothing more is saved, its executions never report back to it. */
	host.crash = async () => {
		const proc = host.process;
		host.process = null;
		proc.alive = false;
		void proc.response?.closeFunction?.(); // only to stop its timers in this test process
	};

	/**
	 * Waits until the check under way is over (the trigger logs when it schedules the next one). A check
	 * that waits on a fake timer (a slow service, a retry) gets it run once nothing else moves.
	 */
	host.idle = async (since = host.checksStarted) => {
		for (let turns = 0, still = 0; host.checksDone <= since; turns++, still++) {
			if (turns > 1_000_000) throw new Error('the check never ended');
			if (still > 2_000 && jest.getTimerCount() > 0) {
				still = 0;
				await jest.advanceTimersToNextTimerAsync();
			}
			await new Promise((resolve) => setImmediate(resolve));
		}
		await new Promise((resolve) => setImmediate(resolve));
	};

	/** Runs the wait before the next check, and that check; returns the fake time from now to the check's end. */
	host.tick = async () => {
		const since = host.checksDone;
		host.checksStarted = since;
		const before = Date.now();
		await jest.advanceTimersToNextTimerAsync();
		await host.idle(since);
		return Date.now() - before;
	};

	/** The items of the executions started so far, flattened. */
	host.delivered = () => host.executions.flatMap((e) => e.json);
	host.state = () => host.process?.workflow.staticData[`node:${node.name}`];
	host.savedState = () => host.saved[`node:${node.name}`];
	return host;
}

module.exports = { createTriggerHost };
