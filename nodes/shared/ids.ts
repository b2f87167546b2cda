/**
 * An id as the nodes compare and send it: text. The spec types ids as text, but services send numbers
 * too (`1`, `42`); compared as sent, `1 !== '1'`, and a bot's own message passed for someone else's.
 * Undefined for anything that is not an id (empty text, null, an object).
 */
export function idText(value: unknown): string | undefined {
	if (typeof value === 'string') return value === '' ? undefined : value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

/** A listed message, as far as its sender goes. */
type SentMessage = { contact?: unknown; [field: string]: unknown };

/** Who sent a message: its `contact`, an object with an id and a username, or a bare id. */
export function senderOf(message: SentMessage): { id?: string; username?: string } {
	const contact = message.contact;
	if (!contact || typeof contact !== 'object') return { id: idText(contact) };
	const { id, username } = contact as { id?: unknown; username?: unknown };
	return { id: idText(id), username: idText(username) };
}

/** Whether `message` was sent by one of `who` (contact ids or usernames, compared as text; '' matches nobody). */
export function sentByOneOf(message: SentMessage, who: string[]): boolean {
	const { id, username } = senderOf(message);
	return who.some((w) => w !== '' && (w === id || w === username));
}
