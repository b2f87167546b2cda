/**
 * The one paginator: list endpoints answer `{ has_more, data }` pages and take a `starting_after`
 * cursor, the id of the last record of the previous page. Get Many, the pickers and the trigger all
 * page through here.
 *
 * A service that ignores the cursor would hand back the same page for ever: a page that brings no
 * record not already seen, or whose last id is the cursor again, ends the walk flagged `stalled`.
 */
import type { IDataObject } from 'n8n-workflow';

import type { FormValue } from './transport/form';
import { messagingApiRequest, type RequestContext, type RequestOptions } from './transport';

/** Largest page asked for (the spec's maximum; a service with a lower cap just sends less). */
export const PAGE_SIZE = 100;

/** Return All stops here, saying so: a service that always answers `has_more` must not page for ever. */
export const MAX_PAGES = 1_000;

export type ListQuery = { [key: string]: FormValue };

export interface ListedPage {
	/** Records not seen earlier in this walk, in the service's order. */
	records: IDataObject[];
	/** The service says more records follow. */
	hasMore: boolean;
	/** Cursor for the page after this one; undefined when the walk is over. */
	next?: string;
	/** The service said it had more but did not advance past this page. */
	stalled: boolean;
}

/** The cursor after `records`, or why there is none. Pure. */
export function nextCursor(
	records: Array<{ id?: unknown }>,
	hasMore: boolean,
	cursor: string | undefined,
	freshCount = records.length,
): { next?: string; stalled: boolean } {
	if (!hasMore) return { stalled: false };
	const last = records[records.length - 1]?.id;
	if (freshCount === 0 || last === undefined || last === null || String(last) === cursor) {
		return { stalled: true };
	}
	return { next: String(last), stalled: false };
}

/** Fetches one page: the records after `cursor`, at most `limit` of them. */
export type FetchPage = (
	cursor: string | undefined,
	limit: number,
) => Promise<{ data: IDataObject[]; hasMore: boolean }>;

/** One page of `collection`, checked: an answer without a `data` array is an error, never an empty page. */
export async function listPage(
	this: RequestContext,
	collection: 'messages' | 'conversations',
	query: ListQuery,
	page: { cursor?: string; limit: number },
	options: RequestOptions = {},
): Promise<{ data: IDataObject[]; hasMore: boolean }> {
	const answer = await messagingApiRequest.call(
		this,
		{
			method: 'GET',
			path: [collection],
			query: { ...query, limit: page.limit, starting_after: page.cursor },
		},
		{ ...options, expect: 'list' },
	);
	return { data: answer.data as IDataObject[], hasMore: answer.has_more === true };
}

/** The pages of `collection` through the transport, as a FetchPage. */
export function servicePages(
	context: RequestContext,
	collection: 'messages' | 'conversations',
	query: ListQuery,
	options: RequestOptions = {},
): FetchPage {
	return async (cursor, limit) =>
		await listPage.call(context, collection, query, { cursor, limit }, options);
}

/**
 * Walks pages from `cursor` on, one fetch per page, yielding each page's new records. The caller
 * stops early by leaving the loop; the walk ends by itself when the service has no more, when it
 * stalls, or after `maxPages`.
 */
export async function* walkPages(
	fetchPage: FetchPage,
	options: {
		/** Records asked for per page; a function when it changes as the walk goes on. */
		pageSize?: number | (() => number);
		cursor?: string;
		maxPages?: number;
	} = {},
): AsyncGenerator<ListedPage & { pageNumber: number }> {
	const { pageSize = PAGE_SIZE, maxPages = MAX_PAGES } = options;
	const seen = new Set<string>();
	let cursor = options.cursor;
	for (let pageNumber = 1; pageNumber <= maxPages; pageNumber++) {
		const limit = typeof pageSize === 'function' ? pageSize() : pageSize;
		const { data, hasMore } = await fetchPage(cursor, limit);
		const records = data.filter((record) => {
			const id = String(record.id);
			if (seen.has(id)) return false;
			seen.add(id);
			return true;
		});
		const { next, stalled } = nextCursor(data, hasMore, cursor, records.length);
		yield { records, hasMore, next, stalled, pageNumber };
		if (!next) return;
		cursor = next;
	}
}

export interface Collected {
	records: IDataObject[];
	/** The service has more records than were collected. */
	hasMore: boolean;
	/** The service did not page past the records collected: the result may lack records. */
	stalled: boolean;
	/** The walk stopped at `maxPages` although the service had more. */
	capped: boolean;
	pages: number;
}

/** Up to `max` records (Infinity: every page, up to `maxPages`). */
export async function collectRecords(
	fetchPage: FetchPage,
	max: number,
	maxPages = MAX_PAGES,
): Promise<Collected> {
	const records: IDataObject[] = [];
	let last: (ListedPage & { pageNumber: number }) | undefined;
	const pageSize = () => Math.min(PAGE_SIZE, max - records.length);
	for await (const page of walkPages(fetchPage, { pageSize, maxPages })) {
		last = page;
		const room = max - records.length;
		records.push(...page.records.slice(0, room));
		if (records.length >= max) {
			const hasMore = page.hasMore || page.records.length > room;
			return { records, hasMore, stalled: false, capped: false, pages: page.pageNumber };
		}
	}
	const stalled = last?.stalled ?? false;
	const capped = !!last?.next;
	return { records, hasMore: stalled || capped, stalled, capped, pages: last?.pageNumber ?? 0 };
}
