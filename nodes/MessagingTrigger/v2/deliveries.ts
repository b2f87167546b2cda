/**
 * The deliveries of version 2's checks: a check first emits again what was lost, then lists what is
 * new; it writes the watermark and the deliveries into static data before it emits (n8n saves static
 * data on emit), and settles each delivery when n8n says its execution has finished.
 */
import type { IDataObject, INodeExecutionData, IRun, ITriggerFunctions } from 'n8n-workflow';

import { serviceMessageExists, servicePages } from '../../shared/paginate';
import { getMessagingCredentials, type RequestContext } from '../../shared/transport';
import { checkForNew } from '../listing';
import { downloadTriggerAttachments } from '../attachments';
import { listQuery } from '../options';
import { gapWarning, messageItems } from '../output';
import { messagesToDeliver } from '../ownContact';
import { isTriggerState, type TriggerMessage, type TriggerState } from '../pollState';
import {
	addInFlight,
	afterRedelivery,
	classifyOutcome,
	deduplicationKey,
	emptyLedger,
	isLedger,
	markLost,
	MAX_ATTEMPTS,
	MAX_IN_FLIGHT_MESSAGES,
	messagesInFlight,
	newDeliveries,
	nextAttempts,
	recoverAfterRestart,
	settle,
	type Delivery,
	type Ledger,
	type Outcome,
} from './deliveryLedger';
import type { LoopSettings } from './checkLoop';
import { outcomesInProcess, rememberOutcome } from './outcomes';
import { readMessagesAgain } from './readAgain';
import { reportUndelivered } from './reports';

export class TriggerDeliveries {
	private closed = false;
	/** Messages of this activation's deliveries, so an attempt lost here is emitted again without a request. */
	private readonly messagesOf = new Map<string, TriggerMessage[]>();

	/**
	 * `redeliveryDue`: called when an attempt turned out to have started before a restart, so that its
	 * next attempt goes out now rather than one interval later.
	 */
	constructor(
		private readonly context: ITriggerFunctions,
		private readonly settings: LoopSettings,
		private readonly redeliveryDue: () => void = () => {},
	) {}

	/** A closed activation leaves its deliveries to the next one (which waits on the same outcomes). */
	close(): void {
		this.closed = true;
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

	/** At activation: attach to executions still running in this process (the others were lost with it). */
	recover(): void {
		const scope = this.scope();
		const ledger = this.ledger();
		const recovered = recoverAfterRestart(ledger, (d) =>
			outcomesInProcess.has(deduplicationKey(scope, d)),
		);
		if (recovered !== ledger) this.staticData.deliveries = recovered;
		for (const delivery of recovered.inFlight) {
			const outcome = outcomesInProcess.get(deduplicationKey(scope, delivery));
			if (outcome) void outcome.then((o) => this.onOutcome(delivery, o));
		}
	}

	/** A context per check, so the credential is read again at each check (edits take effect). */
	private requestContext(): RequestContext {
		return Object.create(this.context) as RequestContext;
	}

	async check(): Promise<void> {
		const context = this.requestContext();
		const { options } = this.settings;
		const credentials = await getMessagingCredentials.call(context);
		const unitSetting = credentials.timestampUnit ?? 'auto';
		const output = { isoTimestamps: options.isoTimestamps, unitSetting };

		// 1. Emit again what was lost.
		const { retry, exhausted } = nextAttempts(
			this.ledger(),
			this.settings.maxAttempts ?? MAX_ATTEMPTS,
		);
		const resent: Array<{ delivery: Delivery; messages: TriggerMessage[] }> = [];
		for (const delivery of retry) {
			let messages: TriggerMessage[];
			try {
				messages = await this.messagesFor(context, delivery);
			} catch (error) {
				// Read again one by one, a lost delivery meets every fault of the service: one that fails
				// stays lost and is tried at the next check, and the new messages still go out now.
				this.context.logger.warn(
					`Messaging Trigger: could not read the ${delivery.ids.length} message(s) of a lost delivery again (${(error as Error).message}); trying at the next check`,
				);
				continue;
			}
			await downloadTriggerAttachments(context as ITriggerFunctions, messages);
			resent.push({ delivery: { ...delivery, ids: messages.map((m) => m.id) }, messages });
		}
		if (this.closed) return;
		if (retry.length > 0 || exhausted.length > 0) {
			const deliveries = resent.map((r) => r.delivery);
			this.staticData.deliveries = afterRedelivery(this.ledger(), deliveries, exhausted);
			for (const delivery of exhausted) this.reportExhausted(delivery);
			for (const { delivery, messages } of resent) {
				if (messages.length === 0) continue;
				const final = delivery.attempt >= (this.settings.maxAttempts ?? MAX_ATTEMPTS);
				const marks: IDataObject = { redelivery: true, attempt: delivery.attempt };
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
		const check = await checkForNew(
			servicePages(context, 'messages', listQuery(options)),
			stored,
			{ ...options, unitSetting, maxNew: room, messageExists: serviceMessageExists(context) },
			Date.now(),
		);
		const { delivered, next, gap } = await messagesToDeliver.call(context, check, {
			skipOwnMessages: options.skipOwnMessages,
			configured: credentials.ownContactId,
		});
		await downloadTriggerAttachments(context as ITriggerFunctions, delivered);
		if (this.closed) return;

		// 3. Write, then emit: whatever happens from here on, each message is either settled or in flight.
		const deliveries = newDeliveries(
			delivered.map((m) => m.id),
			Date.now(),
		);
		this.staticData.state = next;
		if (deliveries.length > 0) this.staticData.deliveries = addInFlight(this.ledger(), deliveries);
		const byId = new Map(delivered.map((m) => [m.id, m]));
		for (const delivery of deliveries) {
			const messages = delivery.ids.map((id) => byId.get(id)!);
			this.emitDelivery(delivery, messageItems(messages, output, gapWarning(gap)), messages);
		}
	}

	/** The messages of a delivery to emit again: from this activation's memory, else read again by id. */
	private async messagesFor(
		context: RequestContext,
		delivery: Delivery,
	): Promise<TriggerMessage[]> {
		const known = this.messagesOf.get(delivery.id);
		if (known) return known;
		return await readMessagesAgain(context, delivery.ids, this.context.logger);
	}

	private emitDelivery(
		delivery: Delivery,
		items: INodeExecutionData[],
		messages: TriggerMessage[],
	): void {
		const key = deduplicationKey(this.scope(), delivery);
		const done = this.context.helpers.createDeferredPromise<IRun | undefined>();
		const outcome: Promise<Outcome> = done.promise.then(
			(resolved: IRun | undefined) => classifyOutcome({ resolved }),
			(rejected: unknown) => classifyOutcome({ rejected }),
		);
		rememberOutcome(key, outcome);
		this.messagesOf.set(delivery.id, messages);
		void outcome.then((o) => this.onOutcome(delivery, o));
		// n8n resolves donePromise with nothing when it drops the emit as a duplicate key.
		this.context.emit([items], undefined, done as Parameters<ITriggerFunctions['emit']>[2], key);
	}

	private onOutcome(delivery: Delivery, outcome: Outcome): void {
		if (this.closed) return;
		const ledger = this.ledger();
		if (outcome === 'lost' || outcome === 'existed') {
			const next = markLost(ledger, delivery.id, delivery.attempt);
			if (next === ledger) return; // not in flight any more (an older attempt)
			this.staticData.deliveries = next;
			const what =
				outcome === 'lost' ? 'did not finish' : 'already exists in n8n, its end unknown here';
			this.context.logger.warn(
				`Messaging Trigger: the execution of attempt ${delivery.attempt} for ${delivery.ids.length} message(s) ${what}; they will be emitted again`,
			);
			if (outcome === 'existed') this.redeliveryDue();
			return;
		}
		const current = ledger.inFlight.find((d) => d.id === delivery.id);
		if (current && current.attempt !== delivery.attempt) return; // an older attempt; the newer one decides
		this.staticData.deliveries = settle(ledger, delivery.id);
		this.messagesOf.delete(delivery.id);
		this.saveSettlement(delivery);
	}

	/**
	 * n8n saves a trigger's static data only when it emits: without this, a settlement followed by a
	 * graceful stop would be forgotten and the delivery emitted again after the restart. Emitting nothing
	 * under the settled attempt's own key saves the state, and n8n drops the emit as a duplicate of that
	 * attempt's execution. (Where n8n deleted that execution, e.g. EXECUTIONS_DATA_SAVE_ON_SUCCESS=none,
	 * the emit runs an execution with no items, which runs no node.)
	 */
	private saveSettlement(delivery: Delivery): void {
		this.context.emit([[]], undefined, undefined, deduplicationKey(this.scope(), delivery));
	}

	private reportExhausted(delivery: Delivery): void {
		this.messagesOf.delete(delivery.id);
		reportUndelivered(this.context, delivery);
	}
}
