import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { messagingApiRequest } from '../../shared/transport';
import { locatorValue } from '../helpers/parameters';

const SEARCH_PAGE_SIZE = 100;

function matches(filter: string | undefined, ...texts: unknown[]): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return texts.some((t) => typeof t === 'string' && t.toLowerCase().includes(needle));
}

/** One page of a list endpoint; the pagination token is the cursor for the next page. */
async function page(
	context: ILoadOptionsFunctions,
	collection: string,
	cursor: string | undefined,
	query: IDataObject = {},
): Promise<{ data: IDataObject[]; next?: string }> {
	const response = await messagingApiRequest.call(context, {
		method: 'GET',
		path: [collection],
		query: { ...(query as Record<string, string>), limit: SEARCH_PAGE_SIZE, starting_after: cursor },
	});
	const data = Array.isArray(response.data) ? (response.data as IDataObject[]) : [];
	const last = data[data.length - 1]?.id;
	const next = response.has_more === true && last !== undefined && String(last) !== cursor ? String(last) : undefined;
	return { data, next };
}

export async function searchConversations(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const { data, next } = await page(this, 'conversations', paginationToken);
	const results = data
		.map((c) => {
			const flags = [c.is_pinned && 'pinned', c.is_muted && 'muted', c.archived_at !== null && c.archived_at !== undefined && 'archived']
				.filter(Boolean)
				.join(', ');
			const who = c.group_id ? `Group ${String(c.group_id)}` : `Contact ${String(c.contact_id)}`;
			return { name: `${who}${flags ? ` (${flags})` : ''} · ${String(c.id)}`, value: String(c.id) };
		})
		.filter((r) => matches(filter, r.name));
	return { results, paginationToken: next };
}

export async function searchMessages(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	let conversationId = '';
	try {
		conversationId = locatorValue(this.getCurrentNodeParameter('conversationId'));
	} catch {
		// The operation has no conversation field: list messages of every conversation.
	}
	const { data, next } = await page(this, 'messages', paginationToken, conversationId ? { conversation_id: conversationId } : {});
	const results = data
		.map((m) => {
			const sender = (m.contact as IDataObject | undefined)?.username ?? (m.contact as IDataObject | undefined)?.id ?? '?';
			const text = String(m.message ?? '').replace(/\s+/g, ' ');
			return {
				name: `${String(sender)}: ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`,
				value: String(m.id),
			};
		})
		.filter((r) => matches(filter, r.name, r.value));
	return { results, paginationToken: next };
}
