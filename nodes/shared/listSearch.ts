import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listPage, nextCursor, PAGE_SIZE, type ListQuery } from './paginate';

/** Whether any of `texts` contains `filter`, ignoring case. */
export function matchesFilter(filter: string | undefined, ...texts: unknown[]): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return texts.some((t) => typeof t === 'string' && t.toLowerCase().includes(needle));
}

/** One picker page of `collection`; the pagination token is the cursor for the next page. */
export async function searchPage(
	context: ILoadOptionsFunctions,
	collection: 'messages' | 'conversations',
	cursor: string | undefined,
	query: ListQuery = {},
): Promise<{ data: IDataObject[]; next?: string }> {
	const { data, hasMore } = await listPage.call(context, collection, query, {
		cursor,
		limit: PAGE_SIZE,
	});
	return { data, next: nextCursor(data, hasMore, cursor).next };
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
	const { data, next } = await searchPage(this, 'conversations', paginationToken);
	const results = data
		.map((c) => ({ name: conversationLabel(c), value: String(c.id) }))
		.filter((r) => matchesFilter(filter, r.name));
	return { results, paginationToken: next };
}
