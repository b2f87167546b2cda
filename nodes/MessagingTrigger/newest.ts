/** Fetch Test Event: the newest message, read without the trigger's state. */
import { walkPages, type PageFetcher } from '../shared/paginate';
import { countOrder, orderShown, type OrderEvidence } from '../shared/listOrder';
import { MAX_TRIGGER_PAGES_PER_CHECK } from './listing';
import { triggerMessagesOf, type TriggerMessage } from './triggerState';

/**
 * The newest message, for "Fetch Test Event": the first page when the service lists newest first,
 * else the walk to the end (up to one check's page cap). The stored state is neither read nor written.
 */
export async function fetchNewest(
	fetchPage: PageFetcher,
	pageSize: number,
): Promise<TriggerMessage | undefined> {
	let newest: TriggerMessage | undefined;
	let previousLast: TriggerMessage | undefined;
	let evidence: OrderEvidence = { rising: 0, falling: 0 };
	for await (const page of walkPages(fetchPage, {
		pageSize,
		maxPages: MAX_TRIGGER_PAGES_PER_CHECK,
	})) {
		const messages = triggerMessagesOf(page.records);
		for (const m of messages) if (!newest || m.created_at > newest.created_at) newest = m;
		evidence = countOrder(messages, previousLast, evidence);
		if (orderShown(evidence) !== 'oldest_first') break;
		previousLast = messages[messages.length - 1] ?? previousLast;
	}
	return newest;
}
