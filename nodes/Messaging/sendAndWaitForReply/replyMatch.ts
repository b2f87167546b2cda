/** Pure: which message answers the sent one, under Send and Wait for Reply's filters. */
import { sentByContact, sentByOneOf } from '../../shared/ids';
import type { ListedMessage } from '../../shared/listedMessage';
import type { TextPattern } from './linearPattern';

export interface ReplyFilter {
	conversationId: string;
	/** The account's own contact id(s) and username(s): its messages are never the reply. */
	own: string[];
	/** Only a message from this contact counts: its ID (matched by ID only), or `@` and its username. */
	fromContact?: string;
	/** Only a message whose text matches counts. */
	pattern?: TextPattern;
}

/** Whether `message` is dated before `sent` (both timestamps numbers). */
export function olderThan(message: ListedMessage, sent: ListedMessage): boolean {
	const at = typeof message.created_at === 'number' ? message.created_at : undefined;
	const sentAt = typeof sent.created_at === 'number' ? sent.created_at : undefined;
	return at !== undefined && sentAt !== undefined && at < sentAt;
}

/** Whether `message` answers `sent` under the filter. */
export function isReply(message: ListedMessage, sent: ListedMessage, filter: ReplyFilter): boolean {
	if (message.id === sent.id) return false;
	if (
		message.conversation_id !== undefined &&
		String(message.conversation_id) !== filter.conversationId
	)
		return false;
	if (sentByOneOf(message, filter.own)) return false;
	if (filter.fromContact && !sentByContact(message, filter.fromContact)) return false;
	if (
		filter.pattern &&
		!filter.pattern.test(typeof message.message === 'string' ? message.message : '')
	)
		return false;
	// A message older than the question cannot answer it (guards against a service that ignores the cursor).
	return !olderThan(message, sent);
}
