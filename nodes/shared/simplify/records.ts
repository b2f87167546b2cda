/**
 * Simplify: a message or a conversation as a person or an AI model reads it. Flat, ISO 8601 times,
 * reactions counted, and without what a reader rarely needs and should not pass on (the sender's phone
 * number and avatar URL, epoch integers, ids of pinned messages). Pure: the caller says who "I" am.
 */
import { idText, senderOf } from '../ids';
import {
	resolveUnit,
	timestampValue,
	toMilliseconds,
	type TimestampUnitSetting,
} from '../timestamps';

type Record_ = Record<string, unknown>;

export interface SimplifyContext {
	/** The service's timestamp unit, or 'auto' to tell it by size. */
	unit: TimestampUnitSetting;
	/** Who "I" am: contact ids or usernames of the credential's account (may be empty). */
	own: string[];
	/** Contact ids of the other person of one-to-one conversations, by conversation id, where known. */
	otherContacts?: Map<string, string>;
}

export interface SimpleAttachment {
	name: string | null;
	type: string | null;
}

export interface SimpleMessage {
	[field: string]: unknown;
	id: string | null;
	conversation_id: string | null;
	from: string | null;
	from_id: string | null;
	from_me: boolean | null;
	text: string;
	sent_at: string | null;
	edited_at: string | null;
	read_at: string | null;
	reactions: Record<string, number>;
	reacted_by: Record<string, string[]>;
	attachments: SimpleAttachment[];
}

export interface SimpleConversation {
	[field: string]: unknown;
	id: string | null;
	contact_id: string | null;
	group_id: string | null;
	pinned: boolean;
	muted: boolean;
	archived: boolean;
	last_active_at: string | null;
}

/** A timestamp as ISO 8601 (UTC), or null when the service sent none or something that is no time. */
export function isoTime(value: unknown, unit: TimestampUnitSetting): string | null {
	const number = timestampValue(value);
	if (number === undefined) {
		// A service that already speaks ISO: kept when it is a readable date.
		if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Date.parse(value))) {
			return new Date(Date.parse(value)).toISOString();
		}
		return null;
	}
	const date = new Date(toMilliseconds(number, resolveUnit(unit, number)));
	return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/**
 * Reactions as the spec shows them (an array of `{name: [reactors]}`) or as an update answers them (one
 * object of names), merged by name: who reacted, in order, once each.
 */
export function reactionsOf(value: unknown): Record<string, string[]> {
	const result: Record<string, string[]> = {};
	const objects = Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : [];
	for (const object of objects) {
		if (!object || typeof object !== 'object' || Array.isArray(object)) continue;
		for (const [name, reactors] of Object.entries(object as Record_)) {
			const list = (Array.isArray(reactors) ? reactors : [reactors])
				.map((r) => idText(r))
				.filter((r): r is string => r !== undefined);
			result[name] = [...new Set([...(result[name] ?? []), ...list])];
		}
	}
	return result;
}

/** Attachment names and types; the spec does not show the attachment object, so common spellings are read. */
export function attachmentsOf(value: unknown): SimpleAttachment[] {
	if (!Array.isArray(value)) return [];
	const pick = (a: Record_, keys: string[]) => {
		for (const key of keys)
			if (typeof a[key] === 'string' && a[key] !== '') return a[key] as string;
		return null;
	};
	return value
		.filter((a): a is Record_ => a !== null && typeof a === 'object' && !Array.isArray(a))
		.map((a) => ({
			name: pick(a, ['name', 'filename', 'file_name', 'title']),
			type: pick(a, ['type', 'mime_type', 'mimeType', 'content_type', 'contentType']),
		}));
}

/** Whether "I" sent a message: by the account's ids, else by the other person of a one-to-one conversation. */
export function fromMe(
	sender: { id?: string; username?: string },
	conversationId: string | undefined,
	context: SimplifyContext,
): boolean | null {
	if (context.own.some((w) => w !== '' && (w === sender.id || w === sender.username))) return true;
	const other =
		conversationId === undefined ? undefined : context.otherContacts?.get(conversationId);
	if (other !== undefined && sender.id !== undefined) return sender.id !== other;
	return context.own.length > 0 ? false : null;
}

export function simplifyMessage(record: Record_, context: SimplifyContext): SimpleMessage {
	const sender = senderOf(record);
	const conversationId = idText(record.conversation_id);
	const reactors = reactionsOf(record.reactions);
	const counts: Record<string, number> = {};
	for (const [name, who] of Object.entries(reactors)) counts[name] = who.length;
	const text = record.message ?? record.text;
	return {
		id: idText(record.id) ?? null,
		conversation_id: conversationId ?? null,
		from: sender.username ?? sender.id ?? null,
		from_id: sender.id ?? null,
		from_me: fromMe(sender, conversationId, context),
		text: typeof text === 'string' ? text : text === undefined || text === null ? '' : String(text),
		sent_at: isoTime(record.created_at, context.unit),
		edited_at: isoTime(record.updated_at, context.unit),
		read_at: isoTime(record.read_at, context.unit),
		reactions: counts,
		reacted_by: reactors,
		attachments: attachmentsOf(record.attachments),
	};
}

export function simplifyConversation(
	record: Record_,
	context: Pick<SimplifyContext, 'unit'>,
): SimpleConversation {
	const archivedAt = record.archived_at;
	return {
		id: idText(record.id) ?? null,
		contact_id: idText(record.contact_id) ?? null,
		group_id: idText(record.group_id) ?? null,
		pinned: record.is_pinned === true || record.is_pinned === 'true',
		muted: record.is_muted === true || record.is_muted === 'true',
		archived: archivedAt !== null && archivedAt !== undefined && archivedAt !== '',
		last_active_at: isoTime(record.last_active_at, context.unit),
	};
}

/** Send and Wait for Reply's `{ sent, reply, timedOut }`, with both messages simplified. */
export function simplifyReply(record: Record_, context: SimplifyContext): Record_ {
	const sender =
		record.sent && typeof record.sent === 'object' ? senderOf(record.sent as Record_) : {};
	const own = [...context.own, ...[sender.id, sender.username].filter((w): w is string => !!w)];
	context = { ...context, own };
	const message = (value: unknown) =>
		value && typeof value === 'object' && !Array.isArray(value)
			? simplifyMessage(value as Record_, context)
			: (value ?? null);
	return { ...record, sent: message(record.sent), reply: message(record.reply) };
}

/** The other contact of a one-to-one conversation record (none for a group). */
export function otherContactOf(conversation: Record_): string | undefined {
	if (idText(conversation.group_id) !== undefined) return undefined;
	return idText(conversation.contact_id);
}

/** Without the fields that say nothing (null, {}, []): an AI model pays for every character. */
export function withoutEmpty<T extends Record_>(record: T): Partial<T> {
	const isEmpty = (v: unknown) =>
		v === null ||
		v === undefined ||
		(Array.isArray(v) && v.length === 0) ||
		(typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);
	return Object.fromEntries(Object.entries(record).filter(([, v]) => !isEmpty(v))) as Partial<T>;
}
