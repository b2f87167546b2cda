import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { cutText, oneLine } from '../../shared/lines';
import { searchPage } from '../../shared/pickers';

export { searchConversations } from '../../shared/pickers';

/** A message as the picker shows it: sender and the start of its text. */
export function messageLabel(message: IDataObject): string {
	const contact = message.contact as IDataObject | undefined;
	const sender = contact?.username ?? contact?.id ?? '?';
	const text = oneLine(String(message.message ?? ''));
	return `${oneLine(String(sender))}: ${text.length > 60 ? `${cutText(text, 60)}…` : text}`;
}

/** Messages of the conversation chosen in the same node (all conversations when there is none). */
export async function searchMessages(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	let conversationId = '';
	try {
		conversationId = String(
			this.getCurrentNodeParameter('conversationId', { extractValue: true }) ?? '',
		).trim();
	} catch {
		// The operation has no conversation field: list messages of every conversation.
	}
	return await searchPage(this, 'messages', {
		cursor: paginationToken,
		filter,
		label: messageLabel,
		query: conversationId ? { conversation_id: conversationId } : {},
	});
}
