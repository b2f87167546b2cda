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

/** A message's sender: its contact's id and username, as text. */
export interface Sender {
	id?: string;
	username?: string;
}

/** Who sent a message: its `contact`, an object with an id and a username, or a bare id. */
export function senderOf(message: SentMessage): Sender {
	const contact = message.contact;
	if (!contact || typeof contact !== 'object') return { id: idText(contact) };
	const { id, username } = contact as { id?: unknown; username?: unknown };
	return { id: idText(id), username: idText(username) };
}

/**
 * Whether `entry` names `sender`, where a match lets a message count (Approvers, Only From Contact): a contact
 * ID, matched by ID only, or `@` and a username. A contact chooses its username, so an ID compared with
 * usernames too would let a contact named `ct_ann` pass for ct_ann.
 */
export function namesSender(entry: string, sender: Sender): boolean {
	if (entry.startsWith('@')) return entry.length > 1 && entry.slice(1) === sender.username;
	return entry !== '' && entry === sender.id;
}

/** Whether the contact `entry` names (see namesSender) sent `message`. */
export function sentByContact(message: SentMessage, entry: string): boolean {
	return namesSender(entry, senderOf(message));
}

/**
 * Whether one of `who` may be `sender`: the account's own, by Your Contact ID or the sent message's sender (ids or
 * usernames, compared as text; '' matches nobody). Looser than namesSender: a contact whose username equals an
 * entry matches too, which is safe where a match only leaves a message out (docs/trigger.md#loop-safety).
 */
export function mayBeSender(who: string[], sender: Sender): boolean {
	return who.some((w) => w !== '' && (w === sender.id || w === sender.username));
}

/** Whether `message` may have been sent by one of `who` (see mayBeSender). */
export function sentByOneOf(message: SentMessage, who: string[]): boolean {
	return mayBeSender(who, senderOf(message));
}
