import type { IExecuteFunctions } from 'n8n-workflow';

import {
	collectRecords,
	MAX_PAGES,
	servicePages,
	type Collected,
	type ListQuery,
	type PageFilter,
} from '../../shared/paginate';
import type { RunContext } from '../types';
import { readExtraFields } from './extraFields';
import { getPositiveInteger } from './parameters';
import { itemSuffix } from '../../shared/inputError';
import { isTool, TOOL_MAX_LIMIT } from '../descriptions/tool';

/** The query parameters Get Many sets itself, which Extra Query Parameters may not replace. */
const SET_BY_NODE = {
	messages: ['limit', 'starting_after', 'conversation_id'],
	conversations: ['limit', 'starting_after', 'archived', 'muted', 'pinned', 'group_id'],
};

/**
 * Get Many for either collection: Return All pages through the cursor, else up to Limit. `filter`: the
 * filters the node applies as pages come (the Limit counts the records it keeps).
 */
export async function getMany(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	collection: 'messages' | 'conversations',
	filters: ListQuery,
	filter?: PageFilter,
): Promise<Collected> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	let max = Infinity;
	if (!returnAll) {
		max = getPositiveInteger(this, 'limit', itemIndex, 'Limit', 50);
	}
	// An AI agent's tool result stays bounded: Return All or a larger Limit is lowered, not refused.
	if (isTool(this)) max = Math.min(max, TOOL_MAX_LIMIT);
	const extra = readExtraFields(this, itemIndex, 'extraQueryParameters', SET_BY_NODE[collection]);
	const query = { ...filters, ...extra };
	const fetchPage = servicePages(this, collection, query, run.requestOptions(itemIndex));
	const result = await collectRecords(fetchPage, max, MAX_PAGES, filter);
	const item = itemSuffix(this, itemIndex);
	if (result.stalled) {
		this.addExecutionHints({
			message: `The service did not page past ${result.records.length} ${collection} (it ignored the starting_after cursor), so the result may be incomplete.`,
			type: 'warning',
			location: 'outputPane',
		});
	} else if (result.capped) {
		this.addExecutionHints({
			message: `Return All stopped after ${MAX_PAGES} pages (${result.records.length} ${collection}) although the service said more exist${item}. Narrow the filters to get the rest.`,
			type: 'warning',
			location: 'outputPane',
		});
	} else if (!returnAll && result.hasMore) {
		const more = filter ? `may match the filters` : 'exist';
		// Added by the router once the output is known, unless n8n's own limit hint says it (limitHint.ts).
		run.moreThanLimit.push({
			message: `More ${collection} ${more} than the limit of ${max}${item}. Turn on Return All, or raise Limit, to get them.`,
		});
	}
	return result;
}
