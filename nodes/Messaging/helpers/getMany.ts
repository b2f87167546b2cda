import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { FormValue } from '../../shared/form';
import { collectPages, type Page } from '../../shared/pagination';
import { messagingApiRequest } from '../../shared/transport';
import type { RunContext } from '../actions/types';
import { inputError } from './parameters';

/** Largest page asked for when paging (the sandbox's maximum; a service with a lower cap just sends less). */
export const PAGE_SIZE = 100;

/** Get Many for either collection: Return All pages through the cursor, else up to Limit. */
export async function getMany(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	collection: 'messages' | 'conversations',
	filters: { [key: string]: FormValue },
): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	let max = Infinity;
	if (!returnAll) {
		max = this.getNodeParameter('limit', itemIndex, 50) as number;
		if (!Number.isInteger(max) || max < 1) throw inputError(this, itemIndex, 'Limit', 'must be a whole number of at least 1');
	}
	const result = await collectPages<IDataObject>(
		async (cursor, pageLimit) =>
			(await messagingApiRequest.call(
				this,
				{
					method: 'GET',
					path: [collection],
					query: { ...filters, limit: pageLimit, starting_after: cursor },
				},
				{ itemIndex, throttle: run.throttle },
			)) as Page<IDataObject>,
		{ max, pageSize: returnAll ? PAGE_SIZE : Math.min(max, PAGE_SIZE) },
	);
	if (result.incomplete) {
		this.addExecutionHints({
			message: `The service did not page past ${result.records.length} ${collection} (it ignored the starting_after cursor), so the result may be incomplete.`,
			type: 'warning',
			location: 'outputPane',
		});
	} else if (!returnAll && result.hasMore) {
		this.addExecutionHints({
			message: `More ${collection} exist than the limit of ${max} [item ${itemIndex}]. Turn on Return All, or raise Limit, to get them.`,
			type: 'info',
			location: 'outputPane',
		});
	}
	return result.records;
}
