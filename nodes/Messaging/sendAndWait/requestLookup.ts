/** Send and Wait for Response's request message, found again when the response arrives. */
import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { listPage } from '../../shared/paginate';
import { getMessagingCredentials, messagingApiRequest } from '../../shared/transport';
import { timestampValue } from '../../shared/timestamps';
import { idText, sentByOneOf } from '../../shared/ids';
import { listedMessages, type ListedMessage } from '../../shared/listedMessage';
import { resumeMarker } from './links';

/** Pages read to find the request message when the response arrives. */
const LOOKUP_PAGES = 4;
const LOOKUP_PAGE_SIZE = 50;

export interface RequestMessage {
	id: string;
	/** The request as the person saw it, without the response links. */
	text: string;
}

/**
 * The request message's ID, so a later step can edit or delete it. The links are signed before the
 * message exists, so its ID cannot be in them: it is the message of the conversation whose text holds
 * this link's `/<execution>/<node>?`. A person may paste or quote the link, so of those it is the one
 * sent by the credential's account when *Your Contact ID* says which that is, else the oldest (the
 * request came first): the newest would hand a later "delete sentMessageId" step the person's message.
 * A failed lookup never blocks the response: the ID is then null.
 */
export async function findRequestMessage(
	context: IWebhookFunctions,
	requestUrl: string,
): Promise<RequestMessage | null> {
	const marker = resumeMarker(requestUrl);
	const conversationId = String(
		context.getNodeParameter('conversationId', '', { extractValue: true }) ?? '',
	).trim();
	if (!marker || conversationId === '') return null;
	// The transport needs only what a webhook context also offers: credentials, the node, httpRequest helpers.
	const requester = context as unknown as IExecuteFunctions;
	const holding: ListedMessage[] = [];
	try {
		const own = String((await getMessagingCredentials.call(requester)).ownContactId ?? '').trim();
		// In a direct conversation the person is its contact: their messages are not the request.
		const conversation = await messagingApiRequest.call(requester, {
			method: 'GET',
			path: ['conversations', conversationId],
		});
		const person = idText(conversation.contact_id) ?? '';
		let cursor: string | undefined;
		for (let page = 0; page < LOOKUP_PAGES; page++) {
			const result = await listPage.call(
				requester,
				'messages',
				{ conversation_id: conversationId },
				{ cursor, limit: LOOKUP_PAGE_SIZE },
			);
			const messages = listedMessages(result.data);
			holding.push(
				...messages.filter((m) => typeof m.message === 'string' && m.message.includes(marker)),
			);
			const last = messages[messages.length - 1];
			if (!result.hasMore || last === undefined || last.id === cursor) break;
			cursor = last.id;
		}
		const id = requestMessageId(holding, own, person);
		const found = holding.find((m) => String(m.id) === id);
		return found && id !== null ? { id, text: withoutLinks(String(found.message), marker) } : null;
	} catch (error) {
		context.logger.warn(
			`Messaging: could not look up the request message: ${(error as Error).message}`,
		);
	}
	return null;
}

/**
 * Of the messages holding the link, the oldest the account sent when `own` names it (none: null), else
 * the oldest not sent by `person` (a direct conversation's contact).
 */
export function requestMessageId(
	holding: ListedMessage[],
	own: string,
	person: string,
): string | null {
	// Knowing who "I" am, only my messages can be the request; else any but the person's.
	const pool =
		own !== ''
			? holding.filter((m) => sentByOneOf(m, [own]))
			: holding.filter((m) => !sentByOneOf(m, [person]));
	const createdAt = (m: ListedMessage) => timestampValue(m.created_at) ?? Infinity;
	const oldest = pool.reduce<ListedMessage | undefined>(
		(best, m) => (best === undefined || createdAt(m) < createdAt(best) ? m : best),
		undefined,
	);
	return oldest ? String(oldest.id) : null;
}

/** The request's text without its link lines (the last lines, each holding the resume link). */
export function withoutLinks(text: string, marker: string): string {
	const lines = text.split('\n');
	while (lines.length > 0 && lines[lines.length - 1].includes(marker)) lines.pop();
	return lines.join('\n').trimEnd();
}
