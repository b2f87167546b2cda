/** Pure: the order of the conversation's list, as a page of Send and Wait for Reply's check shows it. */
import type { ListedMessage } from '../../shared/listedMessage';
import type { ListOrder } from '../../shared/paginate';

/**
 * The list order a page shows, when it shows one: two neighbours with different timestamps, or, on the
 * first page of the list, the top message against the sent one (newest first, the top is at least as
 * new as the sent message; oldest first, at most as new).
 */
export function orderShownBy(
	page: ListedMessage[],
	sent: ListedMessage,
	isTopPage: boolean,
): ListOrder | undefined {
	for (let i = 1; i < page.length; i++) {
		const a = page[i - 1].created_at;
		const b = page[i].created_at;
		if (typeof a !== 'number' || typeof b !== 'number' || a === b) continue;
		return a > b ? 'newest_first' : 'oldest_first';
	}
	const top = page[0]?.created_at;
	const sentAt = sent.created_at;
	if (
		isTopPage &&
		page[0]?.id !== sent.id &&
		typeof top === 'number' &&
		typeof sentAt === 'number' &&
		top !== sentAt
	) {
		return top > sentAt ? 'newest_first' : 'oldest_first';
	}
	return undefined;
}
