/**
 * Recovery by listing, its requests: the walks recoveryPlan.ts plans, page by page, keeping the messages
 * lost deliveries name. A walk the service refuses because what it starts from is gone (a 404, or a 400
 * to a cursor deleted since) finds nothing, so its keys are read one by one; any other failure is thrown.
 */
import { servicePages, walkPages, type ListQuery } from '../../shared/paginate';
import type { RequestContext, RequestOptions } from '../../shared/transport';
import type { DeliveryKey } from '../decisions';
import { MAX_TRIGGER_PAGES_PER_CHECK, statusOf } from '../listing';
import { triggerMessagesOf, type TriggerMessage } from '../triggerState';
import {
	keepsListed,
	recoveryWalks,
	walkEnds,
	type DeliveryBounds,
	type RecoveryWalk,
	type WalkSettings,
} from './recoveryPlan';

export interface ListAgainSettings extends WalkSettings {
	/** The trigger's own list query (its conversation, when it watches one). */
	query: ListQuery;
}

function startIsGone(plan: RecoveryWalk, error: unknown): boolean {
	const status = statusOf(error);
	return status === '404' || (status === '400' && plan.after !== undefined);
}

async function walk(
	context: RequestContext,
	plan: RecoveryWalk,
	settings: ListAgainSettings,
	requests: RequestOptions,
	keep: (message: TriggerMessage) => boolean,
	listed: Map<string, TriggerMessage>,
): Promise<void> {
	const query = plan.conversationId ? { conversation_id: plan.conversationId } : settings.query;
	const fetchPage = servicePages(context, 'messages', query, requests);
	const pages = walkPages(fetchPage, {
		pageSize: settings.pageSize,
		cursor: plan.after,
		maxPages: MAX_TRIGGER_PAGES_PER_CHECK,
	});
	for await (const page of pages) {
		const messages = triggerMessagesOf(page.records);
		for (const m of messages) if (keep(m)) listed.set(m.id, m);
		const foundAll = [...plan.wanted].every((id) => listed.has(id));
		if (walkEnds(plan, messages, foundAll)) return;
	}
}

/**
 * The messages of `lost` (oldest first) found by listing, by id: what their keys name, and the messages
 * around their bursts. Empty when none recorded where its messages are (a ledger of an earlier build).
 */
export async function listAgain(
	context: RequestContext,
	lost: Array<{ keys: DeliveryKey[]; bounds?: DeliveryBounds }>,
	settings: ListAgainSettings,
	requests: RequestOptions = {},
): Promise<Map<string, TriggerMessage>> {
	const listed = new Map<string, TriggerMessage>();
	const keep = keepsListed(lost);
	for (const plan of recoveryWalks(lost, settings)) {
		await walk(context, plan, settings, requests, keep, listed).catch(async (error: unknown) => {
			if (!startIsGone(plan, error)) await Promise.reject(error);
		});
	}
	return listed;
}
