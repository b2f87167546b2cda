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
import {
	MessagingApiError,
	messagingApiRequest,
	type RequestContext,
	type RequestOptions,
} from './transport';

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

/** The order a service lists messages in. */
export type ListOrder = 'newest_first' | 'oldest_first';

/**
 * Fetches one page: the records after `cursor`, at most `limit` of them, and the service's time at its
 * answer when known (see RequestOptions.onServiceTime).
 */
export type PageFetcher = (
	cursor: string | undefined,
	limit: number,
) => Promise<{ data: IDataObject[]; hasMore: boolean; serviceTimeMs?: number }>;

/** Asked for when a service refuses a page size without naming its maximum (the spec's example size). */
export const FALLBACK_PAGE_SIZE = 10;

/**
 * Pure: the page size to ask for after the service refused `limit` (a 400 or 422 whose reason names
 * `limit`: "limit must be between 1 and 50"): the largest number below `limit` the reason names, else
 * FALLBACK_PAGE_SIZE; undefined when the error is something else, or nothing smaller is left to try.
 */
export function smallerPageSize(error: unknown, limit: number): number | undefined {
	if (!(error instanceof MessagingApiError) || (error.status !== 400 && error.status !== 422))
		return undefined;
	const reason = error.serviceText ?? '';
	if (!/\blimit\b/i.test(reason)) return undefined;
	const named = (reason.match(/\d+/g) ?? []).map(Number).filter((n) => n >= 1 && n < limit);
	if (named.length > 0) return Math.max(...named);
	return limit > FALLBACK_PAGE_SIZE ? FALLBACK_PAGE_SIZE : undefined;
}

/** Per node run (or poll): the page size a service accepted after refusing a larger one. */
const pageSizeCaps = new WeakMap<object, number>();

/**
 * One page of `collection`, checked: an answer without a `data` array is an error, never an empty page.
 * A service that refuses the page size (many answer 400 above their maximum rather than send fewer) is
 * asked again with the size its reason names, and the run asks for no more than that from then on.
 */
export async function listPage(
	this: RequestContext,
	collection: 'messages' | 'conversations',
	query: ListQuery,
	page: { cursor?: string; limit: number },
	options: RequestOptions = {},
): Promise<{ data: IDataObject[]; hasMore: boolean; serviceTimeMs?: number }> {
	let serviceTimeMs: number | undefined;
	const request = async (limit: number) =>
		await messagingApiRequest.call(
			this,
			{
				method: 'GET',
				path: [collection],
				query: { ...query, limit, starting_after: page.cursor },
			},
			{ ...options, expect: 'list', onServiceTime: (ms) => (serviceTimeMs = ms) },
		);
	const limit = Math.min(page.limit, pageSizeCaps.get(this) ?? Infinity);
	const askSmaller = async (error: unknown) => {
		const smaller = smallerPageSize(error, limit);
		if (smaller === undefined) return await Promise.reject(error);
		pageSizeCaps.set(this, smaller);
		return await request(smaller);
	};
	const answer = await request(limit).catch(askSmaller);
	const data = answer.data as IDataObject[];
	// A service that never says `has_more` (perhaps capping pages below what was asked) may still have
	// more: any record asks for the next page; an empty one, or the same one again (stalled), ends it.
	const hasMore =
		answer.has_more === undefined
			? data.length > 0
			: answer.has_more === true || answer.has_more === 'true';
	return { data, hasMore, serviceTimeMs };
}

/** Whether a message exists: its GET answers, or 404 (false); any other failure is thrown. */
export function serviceMessageExists(
	context: RequestContext,
	options: RequestOptions = {},
): (id: string) => Promise<boolean> {
	return async (id) =>
		await messagingApiRequest
			.call(context, { method: 'GET', path: ['messages', id] }, options)
			.then(
				() => true,
				async (error: unknown) =>
					error instanceof MessagingApiError && error.status === 404
						? false
						: await Promise.reject(error),
			);
}

/** The pages of `collection` through the transport, as a PageFetcher. */
export function servicePages(
	context: RequestContext,
	collection: 'messages' | 'conversations',
	query: ListQuery,
	options: RequestOptions = {},
): PageFetcher {
	return async (cursor, limit) =>
		await listPage.call(context, collection, query, { cursor, limit }, options);
}

/**
 * Walks pages from `cursor` on, one fetch per page, yielding each page's new records. The caller
 * stops early by leaving the loop; the walk ends by itself when the service has no more, when it
 * stalls, or after `maxPages`.
 */
export async function* walkPages(
	fetchPage: PageFetcher,
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
	/** The service has more records than were collected (with a filter: more may match). */
	hasMore: boolean;
	/** The service did not page past the records collected: the result may lack records. */
	stalled: boolean;
	/** The walk stopped at `maxPages` although the service had more. */
	capped: boolean;
	pages: number;
	/** Records the service listed, before the filter. */
	listed: number;
}

/** Records kept as pages come (the Limit counts them); `endsAfter` is asked after every page, in order. */
export interface PageFilter {
	keep(record: IDataObject): boolean;
	/** No record after this page can be kept: the walk ends here. */
	endsAfter(page: IDataObject[]): boolean;
}

/** Up to `max` records (Infinity: every page, up to `maxPages`), those `filter` keeps when given. */
export async function collectRecords(
	fetchPage: PageFetcher,
	max: number,
	maxPages = MAX_PAGES,
	filter?: PageFilter,
): Promise<Collected> {
	const records: IDataObject[] = [];
	let listed = 0;
	let last: (ListedPage & { pageNumber: number }) | undefined;
	// Filtered, a page holds an unknown number of matches: full pages.
	const pageSize = () => (filter ? PAGE_SIZE : Math.min(PAGE_SIZE, max - records.length));
	for await (const page of walkPages(fetchPage, { pageSize, maxPages })) {
		last = page;
		listed += page.records.length;
		const kept = filter ? page.records.filter((record) => filter.keep(record)) : page.records;
		const ends = filter?.endsAfter(page.records) ?? false;
		const room = max - records.length;
		records.push(...kept.slice(0, room));
		const done = { stalled: false, capped: false, pages: page.pageNumber, listed };
		if (records.length >= max) {
			return { records, hasMore: kept.length > room || (page.hasMore && !ends), ...done };
		}
		if (ends) return { records, hasMore: false, ...done };
	}
	const stalled = last?.stalled ?? false;
	const capped = !!last?.next;
	return {
		records,
		hasMore: stalled || capped,
		stalled,
		capped,
		pages: last?.pageNumber ?? 0,
		listed,
	};
}
