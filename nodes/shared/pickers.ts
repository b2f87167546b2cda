import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { servicePages, walkPages, type ListedPage, type ListQuery } from './paginate';

/** Whether any of `texts` contains `filter`, ignoring case. */
export function matchesFilter(filter: string | undefined, ...texts: unknown[]): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return texts.some((t) => typeof t === 'string' && t.toLowerCase().includes(needle));
}

/** Pages a search reads for its first match before it answers with nothing (the user can load more). */
export const SEARCH_MAX_PAGES = 10;

/**
 * One picker page of `collection`: its records as `label` names them, narrowed by `filter`, and the
 * pagination token for the next page. The service has no text search, so a search term reads on
 * through further pages until something matches.
 */
export async function searchPage(
	context: ILoadOptionsFunctions,
	collection: 'messages' | 'conversations',
	options: {
		cursor: string | undefined;
		filter: string | undefined;
		label: (record: IDataObject) => string;
		query?: ListQuery;
	},
): Promise<INodeListSearchResult> {
	const { filter, label, query = {} } = options;
	const fetchPage = servicePages(context, collection, query);
	let results: INodeListSearchResult['results'] = [];
	let last: ListedPage | undefined;
	for await (const page of walkPages(fetchPage, {
		cursor: options.cursor,
		maxPages: SEARCH_MAX_PAGES,
	})) {
		last = page;
		results = page.records
			.map((record) => ({ name: label(record), value: String(record.id) }))
			.filter((r) => matchesFilter(filter, r.name, r.value));
		if (results.length > 0 || !filter) break;
	}
	return { results, paginationToken: last?.next };
}

/** A conversation as the picker shows it: who, its flags, and its id. */
export function conversationLabel(conversation: IDataObject): string {
	const c = conversation;
	const archived = c.archived_at !== null && c.archived_at !== undefined;
	const flags = [c.is_pinned && 'pinned', c.is_muted && 'muted', archived && 'archived']
		.filter(Boolean)
		.join(', ');
	const who = c.group_id ? `Group ${String(c.group_id)}` : `Contact ${String(c.contact_id)}`;
	return `${who}${flags ? ` (${flags})` : ''} · ${String(c.id)}`;
}

export async function searchConversations(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(this, 'conversations', {
		cursor: paginationToken,
		filter,
		label: conversationLabel,
	});
}
