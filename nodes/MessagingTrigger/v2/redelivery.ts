/**
 * What a lost delivery emits again: its items as first built, from this activation's memory, else (after
 * a restart) found again by listing where its messages are, and what a listing did not find read by key;
 * with the files of its messages; then marked as a redelivery.
 */
import type { IDataObject, ITriggerFunctions, Logger } from 'n8n-workflow';

import type { RequestContext, RequestOptions } from '../../shared/transport';
import {
	downloadTriggerAttachments,
	type DownloadBudget,
} from '../../shared/attachments/triggerDownloads';
import { buildItems, messagesWithFiles, type BuiltItem, type EmitSettings } from '../deliveryItems';
import { listAgain, type ListAgainSettings } from '../events/listAgain';
import { readAgain } from '../events/readAgain';
import { listQuery, type TriggerOptions } from '../options';
import type { TriggerState } from '../triggerState';
import type { Delivery } from './deliveryLedger';

/** What the steps of one check share. */
export interface CheckRun {
	context: RequestContext;
	requests: RequestOptions;
	/** The time the check's downloads share (attachments.ts). */
	downloads: DownloadBudget;
	/** How a lost delivery's items are shaped now. */
	again: EmitSettings;
	/** How the lost deliveries' messages are listed again. */
	relist: ListAgainSettings;
}

export interface Redelivery {
	/** Its keys: those still there (what is gone since is left out). */
	delivery: Delivery;
	built: BuiltItem[];
}

/** How lost deliveries' messages are listed again: as the trigger lists, in the order its state knows. */
export function relistSettings(
	options: TriggerOptions,
	state: TriggerState | null,
): ListAgainSettings {
	const { pageSize, conversationId } = options;
	return {
		order: state?.order,
		pageSize,
		query: listQuery(options),
		filtered: conversationId !== '',
	};
}

/**
 * The items of each next attempt, in order. A delivery whose keys cannot be read again now is left out
 * (logged): it stays lost and is tried at the next check, and the new messages still go out now.
 */
export async function redeliveries(
	{ context, requests, downloads, again, relist }: CheckRun,
	retry: Delivery[],
	remembered: Map<string, BuiltItem[]>,
	logger: Logger,
): Promise<Redelivery[]> {
	const resent: Redelivery[] = [];
	const toRead = retry.filter((d) => !remembered.has(d.id));
	const listed = await listAgain(context, toRead, relist, requests).catch((error: Error) => {
		logger.warn(
			`Messaging Trigger: could not list the messages of ${toRead.length} lost deliveries again (${error.message}); trying at the next check`,
		);
		return undefined;
	});
	for (const delivery of retry) {
		let built = remembered.get(delivery.id);
		// A listing that failed is tried again at the next check rather than reading each of its keys now.
		if (!built && !listed && delivery.bounds) continue;
		try {
			built ??= buildItems(
				await readAgain(context, delivery.keys, logger, requests, listed),
				again,
			);
		} catch (error) {
			logger.warn(
				`Messaging Trigger: could not read the ${delivery.keys.length} message(s) of a lost delivery again (${(error as Error).message}); trying at the next check`,
			);
			continue;
		}
		const decisions = built.map((b) => b.decision);
		await downloadTriggerAttachments(
			context as ITriggerFunctions,
			messagesWithFiles(decisions, again.events),
			downloads,
		);
		resent.push({ delivery: { ...delivery, keys: decisions.map((d) => d.key) }, built });
	}
	return resent;
}

/** What a redelivered item says: why it comes again, its attempt, and whether it is the last one. */
export function redeliveryMarks(delivery: Delivery, maxAttempts: number): IDataObject {
	const marks: IDataObject = {
		redelivery: true,
		redeliveryReason: delivery.lostBecause ?? 'previousOutcomeUnknown',
		attempt: delivery.attempt,
	};
	if (delivery.attempt >= maxAttempts) marks.finalAttempt = true;
	return marks;
}
