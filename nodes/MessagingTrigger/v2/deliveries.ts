/**
 * The deliveries of version 2's checks: a check first emits again what was lost, then lists what is
 * new; it writes the watermark and the deliveries into static data before it emits (n8n saves static
 * data on emit), and forgets each delivery when n8n says its execution has finished.
 */
import type { INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';

import {
	downloadBudget,
	downloadTriggerAttachments,
} from '../../shared/attachments/triggerDownloads';
import {
	buildItems,
	markedAgain,
	messagesWithFiles,
	withFiles,
	type BuiltItem,
} from '../deliveryItems';
import { checkEvents } from '../events/check';
import { withBounds } from '../events/recoveryPlan';
import type { KnownConversations } from '../ownContact';
import { checkSetup, type ActivationHandle, type ActivationSettings } from './activation';
import {
	addInFlight,
	afterRedelivery,
	deduplicationKey,
	eventsInFlight,
	markFinished,
	markLost,
	MAX_DELIVERY_ATTEMPTS,
	MAX_IN_FLIGHT_EVENTS,
	newDeliveries,
	nextAttempts,
	recoverAfterRestart,
	type Delivery,
} from './deliveryLedger';
import {
	emitAttempt,
	endInProcess,
	isFinalEnd,
	saveStaticDataNow,
	sleepUnlessAborted,
	type ExecutionEnd,
} from './n8nBridge';
import { redeliveries, redeliveryMarks, redeliverySettings, type CheckRun } from './redelivery';
import { reportUndelivered } from './reports';
import { TriggerStore } from './store';

export class TriggerDeliveries {
	/** No check emits any more (the activation is stopping). */
	private stopping = false;
	/** Ends that arrive from now on belong to the next activation. */
	private closed = false;
	/** Handlers of the ends this activation waits for. */
	private readonly pending = new Set<Promise<void>>();
	/** A finished delivery not yet saved to n8n's database, and the key of an execution that exists to save it under. */
	private unsaved: string | undefined;
	/** The items of this activation's deliveries as first built, so an attempt lost here is emitted again without a request. */
	private readonly builtOf = new Map<string, BuiltItem[]>();
	private readonly knownConversations: KnownConversations = new Map();
	private readonly store: TriggerStore;

	/**
	 * `redeliveryDue`: called when an attempt turned out to have started before a restart, so that its
	 * next attempt goes out now rather than one interval later.
	 */
	constructor(
		private readonly context: ITriggerFunctions,
		private readonly settings: ActivationSettings,
		private readonly redeliveryDue: () => void = () => {},
		private readonly activation: ActivationHandle = {},
	) {
		this.store = new TriggerStore(context);
	}

	/** Checks under way emit nothing more. */
	stopChecks(): void {
		this.stopping = true;
	}

	/**
	 * A stopping activation waits (at most `waitMs`) for the executions of its deliveries to end and saves
	 * that they finished, so a graceful restart redelivers nothing that finished; what is still running
	 * then is left to the next activation (which waits on the same ends when it runs in this process).
	 */
	async close(waitMs: number): Promise<void> {
		this.stopping = true;
		if (this.pending.size > 0) {
			const waited = new AbortController();
			await Promise.race([
				Promise.allSettled([...this.pending]).then(() => waited.abort()),
				sleepUnlessAborted(waitMs, waited.signal),
			]);
			waited.abort();
		}
		this.closed = true;
		this.saveFinished();
	}

	/** n8n's deduplication key of a delivery's attempt. */
	private attemptKey(delivery: Delivery): string {
		const workflowId = String(this.context.getWorkflow().id ?? '');
		return deduplicationKey({ workflowId, nodeId: this.context.getNode().id }, delivery);
	}

	/** A check has saved where the stream stands (this is not the first activation). */
	knowsWhereTheStreamStands(): boolean {
		return this.store.state() !== null;
	}

	/** At activation: attach to executions still running in this process (the others were lost with it). */
	recover(): void {
		const ledger = this.store.ledger();
		const recovered = recoverAfterRestart(ledger, (d) => !!endInProcess(this.attemptKey(d)));
		if (recovered !== ledger) this.store.writeLedger(recovered);
		for (const delivery of recovered.inFlight) {
			const end = endInProcess(this.attemptKey(delivery));
			if (end) this.await(delivery, end);
		}
	}

	async check(): Promise<void> {
		const downloads = downloadBudget(this.settings.intervalMs);
		const { options } = this.settings;
		const { events } = options;
		const { context, credentials, account } = await checkSetup(this.context, this.settings, {
			member: this,
			...this.activation,
			order: this.store.state()?.order,
		});
		const { requests } = account;
		const unitSetting = credentials.timestampUnit ?? 'auto';
		const { again, relist } = redeliverySettings(options, credentials, this.store.state());

		// 1. Emit again what was lost.
		await this.redeliverLost({ context, requests, downloads, again, relist });
		if (this.stopping) return;

		// 2. List what is new, unless too much is in flight already.
		const room = MAX_IN_FLIGHT_EVENTS - eventsInFlight(this.store.ledger());
		if (room <= 0) return;
		const check = await checkEvents(context, this.store.state(), {
			options,
			unitSetting,
			configuredOwn: credentials.ownContactId,
			room,
			nowMs: Date.now(),
			...account,
			knownConversations: this.knownConversations,
		});
		await downloadTriggerAttachments(
			context as ITriggerFunctions,
			messagesWithFiles(check.decisions, events),
			downloads,
		);
		if (this.stopping) return;

		// 3. Write, then emit: whatever happens from here on, each key is either finished or in flight.
		const keys = check.decisions.map((d) => d.key);
		const deliveries = withBounds(
			newDeliveries(keys, Date.now()),
			check.decisions,
			this.store.state(),
		);
		this.store.writeState(check.nextState);
		if (deliveries.length > 0) this.store.writeLedger(addInFlight(this.store.ledger(), deliveries));
		const built = buildItems(check.decisions, { events, output: check.output }, check.gap);
		let at = 0;
		for (const delivery of deliveries) {
			const part = built.slice(at, (at += delivery.keys.length));
			this.emitDelivery(delivery, withFiles(part, events), part);
		}
		if (deliveries.length === 0) this.saveFinished();
	}

	/** The next attempts of the lost deliveries, and a report of those whose attempts are spent. */
	private async redeliverLost(run: CheckRun): Promise<void> {
		const maxAttempts = this.settings.maxAttempts ?? MAX_DELIVERY_ATTEMPTS;
		const { retry, exhausted } = nextAttempts(this.store.ledger(), maxAttempts);
		const resent = await redeliveries(run, retry, this.builtOf, this.context.logger);
		if (this.stopping || (retry.length === 0 && exhausted.length === 0)) return;
		const deliveries = resent.map((r) => r.delivery);
		this.store.writeLedger(afterRedelivery(this.store.ledger(), deliveries, exhausted));
		for (const delivery of exhausted) this.reportExhausted(delivery);
		for (const { delivery, built } of resent) {
			const marks = redeliveryMarks(delivery, maxAttempts);
			if (built.length > 0)
				this.emitDelivery(delivery, markedAgain(built, run.again, marks), built);
		}
	}

	private emitDelivery(delivery: Delivery, items: INodeExecutionData[], built: BuiltItem[]): void {
		this.builtOf.set(delivery.id, built);
		// This emit saves the static data: finished deliveries so far included.
		this.unsaved = undefined;
		this.await(delivery, emitAttempt(this.context, items, this.attemptKey(delivery)));
	}

	private await(delivery: Delivery, end: Promise<ExecutionEnd>): void {
		const handled = end.then((e) => this.onEnd(delivery, e));
		this.pending.add(handled);
		void handled.finally(() => this.pending.delete(handled));
	}

	private onEnd(delivery: Delivery, end: ExecutionEnd): void {
		if (this.closed) return;
		const ledger = this.store.ledger();
		if (!isFinalEnd(end)) {
			const because = end === 'existed' ? 'previousOutcomeUnknown' : 'previousAttemptFailed';
			const next = markLost(ledger, delivery.id, delivery.attempt, because);
			if (next === ledger) return; // not in flight any more (an older attempt)
			this.store.writeLedger(next);
			const what =
				end === 'existed' ? 'already exists in n8n, its end unknown here' : `ended: ${end}`;
			this.context.logger.warn(
				`Messaging Trigger: the execution of attempt ${delivery.attempt} for ${delivery.keys.length} event(s) ${what}; they will be emitted again`,
			);
			if (end === 'existed') this.redeliveryDue();
			return;
		}
		const current = ledger.inFlight.find((d) => d.id === delivery.id);
		if (current && current.attempt !== delivery.attempt) return; // an older attempt; the newer one decides
		this.store.writeLedger(markFinished(ledger, delivery.id));
		this.builtOf.delete(delivery.id);
		this.unsaved = this.attemptKey(delivery);
		if (!this.stopping) this.saveFinished();
	}

	/**
	 * n8n saves a trigger's static data only when it emits: without this, a finished delivery followed
	 * by a stop or a crash would be forgotten and emitted again. While the trigger waits to stop,
	 * finished deliveries are saved once, when the wait is over.
	 */
	private saveFinished(): void {
		if (this.unsaved === undefined) return;
		if (saveStaticDataNow(this.context, this.unsaved)) this.unsaved = undefined;
	}

	private reportExhausted(delivery: Delivery): void {
		this.builtOf.delete(delivery.id);
		reportUndelivered(this.context, delivery);
	}
}
