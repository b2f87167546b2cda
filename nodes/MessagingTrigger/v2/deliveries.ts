/**
 * The deliveries of version 2's checks: a check first emits again what was lost, then lists what is
 * new; it writes the watermark and the deliveries into static data before it emits (n8n saves static
 * data on emit), and settles each delivery when n8n says its execution has finished.
 */
import type { IDataObject, INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';

import {
	getMessagingCredentials,
	type MessagingCredentials,
	type RequestContext,
	type RequestOptions,
} from '../../shared/transport';
import { checkEvents } from '../events/check';
import { readDeliveryAgain } from '../events/readAgain';
import { messageItems, type MessageOutputSettings } from '../output';
import { downloadBudget, downloadTriggerAttachments, withAttachmentOutput } from '../attachments';
import { isTriggerState, type TriggerMessage, type TriggerState } from '../pollState';
import type { KnownConversations } from '../ownContact';
import {
	addInFlight,
	afterRedelivery,
	deduplicationKey,
	emptyLedger,
	isLedger,
	markLost,
	MAX_DELIVERY_ATTEMPTS,
	MAX_IN_FLIGHT_MESSAGES,
	messagesInFlight,
	newDeliveries,
	nextAttempts,
	recoverAfterRestart,
	settle,
	type Delivery,
	type Ledger,
} from './deliveryLedger';
import type { LoopSettings } from './checkLoop';
import {
	emitAttempt,
	endInProcess,
	isFinalEnd,
	saveStaticDataNow,
	sleepUnlessAborted,
	type ExecutionEnd,
} from './n8nBridge';
import { reportUndelivered } from './reports';
import { accountKey, sharedPaces } from './sharedPace';

export class TriggerDeliveries {
	/** No check emits any more (the activation is stopping). */
	private stopping = false;
	/** Ends that arrive from now on belong to the next activation. */
	private closed = false;
	/** Handlers of the ends this activation waits for. */
	private readonly pending = new Set<Promise<void>>();
	/** A settlement not yet saved to n8n's database, and the key of an execution that exists to save it under. */
	private unsaved: string | undefined;
	/** Messages of this activation's deliveries, so an attempt lost here is emitted again without a request. */
	private readonly messagesOf = new Map<string, TriggerMessage[]>();
	private readonly knownConversations: KnownConversations = new Map();

	/**
	 * `redeliveryDue`: called when an attempt turned out to have started before a restart, so that its
	 * next attempt goes out now rather than one interval later. `activation`: its stop's signal (which
	 * ends the check's waits) and what stands for it among the triggers sharing its account's pace.
	 */
	constructor(
		private readonly context: ITriggerFunctions,
		private readonly settings: LoopSettings,
		private readonly redeliveryDue: () => void = () => {},
		private readonly activation: { signal?: AbortSignal; member?: object } = {},
	) {}

	/** Checks under way emit nothing more. */
	stopChecks(): void {
		this.stopping = true;
	}

	/**
	 * A stopping activation waits (at most `waitMs`) for the executions of its deliveries to end and saves
	 * their settlement, so a graceful restart redelivers nothing that finished; what is still running then
	 * is left to the next activation (which waits on the same ends when it runs in this process).
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
		this.saveSettlements();
	}

	private get staticData(): IDataObject {
		return this.context.getWorkflowStaticData('node');
	}

	private ledger(): Ledger {
		const stored = this.staticData.deliveries;
		return isLedger(stored) ? stored : emptyLedger();
	}

	private scope() {
		return {
			workflowId: String(this.context.getWorkflow().id ?? ''),
			nodeId: this.context.getNode().id,
		};
	}

	/** A check has saved where the stream stands (this is not the first activation). */
	knowsWhereTheStreamStands(): boolean {
		return isTriggerState(this.staticData.state);
	}

	/** At activation: attach to executions still running in this process (the others were lost with it). */
	recover(): void {
		const scope = this.scope();
		const ledger = this.ledger();
		const recovered = recoverAfterRestart(
			ledger,
			(d) => endInProcess(deduplicationKey(scope, d)) !== undefined,
		);
		if (recovered !== ledger) this.staticData.deliveries = recovered;
		for (const delivery of recovered.inFlight) {
			const end = endInProcess(deduplicationKey(scope, delivery));
			if (end) this.await(delivery, end);
		}
	}

	/** A context per check, so the credential is read again at each check (edits take effect). */
	private requestContext(): RequestContext {
		const context = Object.create(this.context) as RequestContext;
		const { signal } = this.activation;
		// The transport ends its waits (a turn of the shared pace, a retry) when this aborts: a stop.
		if (signal) Object.defineProperty(context, 'getExecutionCancelSignal', { value: () => signal });
		return context;
	}

	/**
	 * Every request of a check takes its turn in the pace its account shares with the other triggers of
	 * this process. A request that gives up fails its own check only: no other trigger's check stops.
	 */
	private requestOptions(credentials: MessagingCredentials): RequestOptions {
		const key = accountKey(
			String(credentials.baseUrl ?? ''),
			String(credentials.accessToken ?? ''),
		);
		const member = this.activation.member ?? this;
		return {
			pacer: sharedPaces.pacerFor(key, member, this.settings.intervalMs),
			throughRefusal: true,
		};
	}

	async check(): Promise<void> {
		const downloads = downloadBudget(this.settings.intervalMs);
		const context = this.requestContext();
		const { options } = this.settings;
		const credentials = await getMessagingCredentials.call(context);
		const requests = this.requestOptions(credentials);
		const unitSetting = credentials.timestampUnit ?? 'auto';
		const storedOwn = (this.staticData.state as TriggerState | undefined)?.ownContactId;
		const output = {
			...options,
			unitSetting,
			own: credentials.ownContactId?.trim() || storedOwn,
		};

		// 1. Emit again what was lost.
		const { retry, exhausted } = nextAttempts(
			this.ledger(),
			this.settings.maxAttempts ?? MAX_DELIVERY_ATTEMPTS,
		);
		const resent: Array<{ delivery: Delivery; messages: TriggerMessage[] }> = [];
		for (const delivery of retry) {
			let messages: TriggerMessage[];
			try {
				messages = await this.messagesFor(context, delivery, output, requests);
			} catch (error) {
				// Read again one by one, a lost delivery meets every fault of the service: one that fails
				// stays lost and is tried at the next check, and the new messages still go out now.
				this.context.logger.warn(
					`Messaging Trigger: could not read the ${delivery.ids.length} message(s) of a lost delivery again (${(error as Error).message}); trying at the next check`,
				);
				continue;
			}
			await downloadTriggerAttachments(context as ITriggerFunctions, messages, downloads);
			resent.push({ delivery: { ...delivery, ids: messages.map((m) => m.id) }, messages });
		}
		if (this.stopping) return;
		if (retry.length > 0 || exhausted.length > 0) {
			const deliveries = resent.map((r) => r.delivery);
			this.staticData.deliveries = afterRedelivery(this.ledger(), deliveries, exhausted);
			for (const delivery of exhausted) this.reportExhausted(delivery);
			for (const { delivery, messages } of resent) {
				if (messages.length === 0) continue;
				const final = delivery.attempt >= (this.settings.maxAttempts ?? MAX_DELIVERY_ATTEMPTS);
				const marks: IDataObject = {
					redelivery: true,
					redeliveryReason: delivery.lostBecause ?? 'previousOutcomeUnknown',
					attempt: delivery.attempt,
				};
				if (final) marks.finalAttempt = true;
				this.emitDelivery(delivery, messageItems(messages, output, marks), messages);
			}
		}

		// 2. List what is new, unless too much is in flight already.
		const room = MAX_IN_FLIGHT_MESSAGES - messagesInFlight(this.ledger());
		if (room <= 0) return;
		const stored = isTriggerState(this.staticData.state)
			? (this.staticData.state as TriggerState)
			: null;
		const { deliveries: planned, nextState } = await checkEvents(context, stored, {
			options,
			events: options.events,
			unitSetting,
			configuredOwn: credentials.ownContactId,
			room,
			nowMs: Date.now(),
			requests,
			knownConversations: this.knownConversations,
		});
		await downloadTriggerAttachments(
			context as ITriggerFunctions,
			planned.flatMap((d) => d.messages),
			downloads,
		);
		if (this.stopping) return;

		// 3. Write, then emit: whatever happens from here on, each key is either settled or in flight.
		const deliveries = newDeliveries(
			planned.map((d) => d.key),
			Date.now(),
		);
		this.staticData.state = nextState;
		if (deliveries.length > 0) this.staticData.deliveries = addInFlight(this.ledger(), deliveries);
		const byKey = new Map(planned.map((d) => [d.key, d]));
		for (const delivery of deliveries) {
			const parts = delivery.ids.map((key) => byKey.get(key)!);
			this.emitDelivery(
				delivery,
				parts.flatMap((p) => withAttachmentOutput(p.items, p.messages)),
				parts.flatMap((p) => p.messages),
			);
		}
		if (deliveries.length === 0) this.saveSettlements();
	}

	/** The messages of a delivery to emit again: from this activation's memory, else read again by id. */
	private async messagesFor(
		context: RequestContext,
		delivery: Delivery,
		output: MessageOutputSettings,
		requests: RequestOptions,
	): Promise<TriggerMessage[]> {
		const known = this.messagesOf.get(delivery.id);
		if (known) return known;
		return await readDeliveryAgain(
			context,
			delivery.ids,
			this.context.logger,
			{ events: this.settings.options.events, output },
			requests,
		);
	}

	private emitDelivery(
		delivery: Delivery,
		items: INodeExecutionData[],
		messages: TriggerMessage[],
	): void {
		this.messagesOf.set(delivery.id, messages);
		// This emit saves the static data: settlements so far included.
		this.unsaved = undefined;
		this.await(
			delivery,
			emitAttempt(this.context, items, deduplicationKey(this.scope(), delivery)),
		);
	}

	private await(delivery: Delivery, end: Promise<ExecutionEnd>): void {
		const handled = end.then((e) => this.onEnd(delivery, e));
		this.pending.add(handled);
		void handled.finally(() => this.pending.delete(handled));
	}

	private onEnd(delivery: Delivery, end: ExecutionEnd): void {
		if (this.closed) return;
		const ledger = this.ledger();
		if (!isFinalEnd(end)) {
			const because = end === 'existed' ? 'previousOutcomeUnknown' : 'previousAttemptFailed';
			const next = markLost(ledger, delivery.id, delivery.attempt, because);
			if (next === ledger) return; // not in flight any more (an older attempt)
			this.staticData.deliveries = next;
			const what =
				end === 'existed' ? 'already exists in n8n, its end unknown here' : `ended: ${end}`;
			this.context.logger.warn(
				`Messaging Trigger: the execution of attempt ${delivery.attempt} for ${delivery.ids.length} event(s) ${what}; they will be emitted again`,
			);
			if (end === 'existed') this.redeliveryDue();
			return;
		}
		const current = ledger.inFlight.find((d) => d.id === delivery.id);
		if (current && current.attempt !== delivery.attempt) return; // an older attempt; the newer one decides
		this.staticData.deliveries = settle(ledger, delivery.id);
		this.messagesOf.delete(delivery.id);
		this.unsaved = deduplicationKey(this.scope(), delivery);
		if (!this.stopping) this.saveSettlements();
	}

	/**
	 * n8n saves a trigger's static data only when it emits: without this, a settlement followed by a
	 * stop or a crash would be forgotten and the delivery emitted again. While the trigger waits to stop,
	 * settlements are saved once, when the wait is over.
	 */
	private saveSettlements(): void {
		if (this.unsaved === undefined) return;
		if (saveStaticDataNow(this.context, this.unsaved)) this.unsaved = undefined;
	}

	private reportExhausted(delivery: Delivery): void {
		this.messagesOf.delete(delivery.id);
		reportUndelivered(this.context, delivery);
	}
}
