/**
 * Version 2 while its workflow is active: one check at a time, every interval, for as long as the
 * activation lasts; a check that fails is logged, reported when it keeps failing, and retried later.
 * What a check emits and how its deliveries end is in deliveries.ts.
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import { ActivationCredential, type ActivationSettings } from './activation';
import { TriggerDeliveries } from './deliveries';
import { honoursDeduplicationKeys, sleepUnlessAborted, STOP_WAIT_MS } from './n8nBridge';
import { reportFailingChecks } from './reports';
import { sharedPaces } from './sharedPace';
import { readerOf, sharedPages } from './sharedPages';
import { nextDelay, serviceWaitOf, shouldReport } from './schedule';

/** n8n before 2.20 drops no repeated delivery (docs/compatibility.md): said once per activation, in n8n's log. */
export const UNSUPPORTED_N8N_WARNING =
	'Messaging Trigger version 2 needs n8n 2.20 or newer: this n8n ignores deduplication keys, so after a restart a delivery can come again without the redelivery mark. Use version 1 on this n8n.';

export class CheckLoop {
	private readonly abort = new AbortController();
	private closed = false;
	/** A check is due before the interval is over (a lost delivery's next attempt); `wake` ends the wait. */
	private due = false;
	private wake: (() => void) | undefined;
	private failures = 0;
	private streak: { since: number; failures: number; lastReportAt?: number } | undefined;
	private loop: Promise<void> | undefined;
	private readonly deliveries: TriggerDeliveries;
	/** Read at most once a minute, and again after a failed check (a refused or edited credential). */
	private readonly credential = new ActivationCredential();

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly settings: ActivationSettings,
	) {
		this.deliveries = new TriggerDeliveries(context, settings, () => this.checkNow(), {
			signal: this.abort.signal,
			member: this,
			credential: this.credential,
		});
	}

	/**
	 * At activation: attach to executions still running in this process. A first activation runs its
	 * first check before n8n saves the activation's static data, so that where the stream stood survives
	 * a restart even when nothing is emitted; later activations check at once, without holding up n8n's
	 * activation (n8n 2.40 fails one that takes over 84 s: docs/exactly-once.md#activation).
	 */
	async start(): Promise<void> {
		if (!honoursDeduplicationKeys(this.context)) this.context.logger.warn(UNSUPPORTED_N8N_WARNING);
		this.deliveries.recover();
		const first = this.deliveries.knowsWhereTheStreamStands() ? 0 : await this.checkOnce();
		this.loop = this.run(first);
	}

	/** Stops checking, then waits for the executions in flight to end and saves which finished. */
	async stop(): Promise<void> {
		this.closed = true;
		this.deliveries.stopChecks();
		this.abort.abort();
		await this.loop;
		sharedPaces.leave(this);
		await this.deliveries.close(this.settings.stopWaitMs ?? STOP_WAIT_MS);
	}

	/** One check; the wait before the next one. A failure is logged and reported, never thrown. */
	private async checkOnce(): Promise<number> {
		let delay: number;
		try {
			await this.deliveries.check();
			this.failures = 0;
			this.streak = undefined;
			delay = nextDelay(this.settings.intervalMs, 0);
		} catch (error) {
			this.failures += 1;
			this.credential.forget();
			delay = nextDelay(this.settings.intervalMs, this.failures, serviceWaitOf(error));
			if (!this.closed) this.onFailure(error, delay);
		}
		// What it reads from now on was asked for after everything it read so far.
		sharedPages.checked(readerOf(this.context));
		this.context.logger.debug(`Messaging Trigger: next check in ${delay} ms`);
		return delay;
	}

	/**
	 * Runs the next check as soon as the one under way (if any) is over; after a failed check, once its
	 * backoff (and the service's Retry-After) is over.
	 */
	private checkNow(): void {
		this.due = true;
		if (this.failures === 0) this.wake?.();
	}

	private async run(firstDelay: number): Promise<void> {
		let delay = firstDelay;
		while (!this.closed) {
			const woken = new AbortController();
			this.wake = () => woken.abort();
			try {
				if (!this.due || this.failures > 0) {
					// On the tick of the account's triggers reading the same pages; never earlier after a failure.
					const at = sharedPaces.slot(this, Date.now() + delay, this.failures > 0);
					const wait = at - Date.now();
					await sleepUnlessAborted(wait, AbortSignal.any([this.abort.signal, woken.signal]));
				}
			} catch {
				// closed, or woken
			}
			this.wake = undefined;
			this.due = false;
			if (this.closed) return;
			delay = await this.checkOnce();
		}
	}

	private onFailure(error: Error, delay: number): void {
		const now = Date.now();
		this.streak ??= { since: now, failures: 0 };
		this.streak.failures += 1;
		this.context.logger.warn(
			`Messaging Trigger: check failed (${this.streak.failures} in a row), next check in ${Math.round(delay / 1000)} s: ${error.message}`,
		);
		if (shouldReport(this.streak, now)) {
			this.streak.lastReportAt = now;
			reportFailingChecks(this.context, error, now - this.streak.since);
		}
	}
}
