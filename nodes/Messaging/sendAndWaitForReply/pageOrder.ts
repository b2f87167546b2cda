/** Pure: the order of the conversation's list, as a page of Send and Wait for Reply's check shows it. */
import { isDated, type ListedMessage } from '../../shared/listedMessage';
import { countOrder, orderShown, type OrderEvidence } from '../../shared/listOrder';
import type { ListOrder } from '../../shared/paginate';

/**
 * The list order a page shows, when it shows one: the way most of its adjacent pairs go, the trigger's
 * rule (a late or bridged message turns one or two pairs, never most; a pair with a timestamp that is not
 * a number shows nothing). When the pairs show nothing, on the first page of the list, the top message
 * against the sent one (newest first, the top is at least as new as the sent message; oldest first, at
 * most as new).
 */
export function orderShownBy(
	page: ListedMessage[],
	sent: ListedMessage,
	isTopPage: boolean,
): ListOrder | undefined {
	let evidence: OrderEvidence = { rising: 0, falling: 0 };
	for (let i = 1; i < page.length; i++) {
		const [before, message] = [page[i - 1], page[i]];
		if (isDated(before) && isDated(message)) evidence = countOrder([message], before, evidence);
	}
	const shown = orderShown(evidence);
	if (shown) return shown;
	const top = page[0];
	if (isTopPage && top && top.id !== sent.id && isDated(top) && isDated(sent)) {
		// The top is listed before the sent message: the pair (top, sent).
		return orderShown(countOrder([sent], top));
	}
	return undefined;
}
