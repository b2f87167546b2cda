'use strict';
/**
 * The sandbox service's data: contacts, groups, conversations and messages, with the
 * spec's defaults. Pure in-memory state; server.js and lists.js map HTTP onto it.
 */

class ServiceError extends Error {
	constructor(status, type, message) {
		super(message);
		this.status = status;
		this.type = type;
	}
}

const notFound = (what, id) => new ServiceError(404, 'not_found', `No such ${what}: ${id}`);
const invalid = (message) => new ServiceError(400, 'invalid_request', message);

/** A Map that counts its writes, so readers can cache what they derive from it (direct writes included). */
class VersionedMap extends Map {
	constructor(owner) {
		super();
		this.owner = owner;
	}
	set(key, value) {
		this.owner.version += 1;
		return super.set(key, value);
	}
	delete(key) {
		this.owner.version += 1;
		return super.delete(key);
	}
	clear() {
		this.owner.version += 1;
		super.clear();
	}
}

class Store {
	/**
	 * @param {object} options
	 * @param {'s'|'ms'} [options.unit] timestamp unit of every timestamp the service writes
	 * @param {() => number} [options.clock] milliseconds since the epoch; tests replace it
	 */
	constructor({ unit = 's', clock = () => Date.now() } = {}) {
		this.unit = unit;
		this.clock = clock;
		/** Grows on every write to the maps below (records are replaced, never edited in place). */
		this.version = 0;
		this.contacts = new VersionedMap(this);
		this.groups = new VersionedMap(this);
		this.conversations = new VersionedMap(this);
		this.messages = new VersionedMap(this);
		this.counters = { ct: 0, grp: 0, conv: 0, msg: 0 };
	}

	/** Current time in the service's unit. */
	now() {
		const ms = this.clock();
		return this.unit === 'ms' ? Math.floor(ms) : Math.floor(ms / 1000);
	}

	/** Ids sort in creation order (zero-padded), which keeps `created_at, id` a total order. */
	nextId(prefix) {
		this.counters[prefix] += 1;
		return `${prefix}_${String(this.counters[prefix]).padStart(8, '0')}`;
	}

	/** @param {{ id?: string, username?: string, phoneNumber?: string, createdAt?: number }} [contact] */
	addContact({ id, username, phoneNumber, createdAt } = {}) {
		const contact = {
			id: id ?? this.nextId('ct'),
			username: username ?? `user${this.counters.ct}`,
			phone_number: phoneNumber ?? `+1555${String(this.contacts.size).padStart(7, '0')}`,
			avatar_url: null,
			last_active_at: null,
			created_at: createdAt ?? this.now(),
		};
		contact.avatar_url = `https://avatars.example.com/${encodeURIComponent(contact.id)}.png`;
		this.contacts.set(contact.id, contact);
		return contact;
	}

	/** @param {{ id?: string, name?: string, contactIds?: string[] }} [group] */
	addGroup({ id, name, contactIds = [] } = {}) {
		const group = { id: id ?? this.nextId('grp'), name: name ?? 'Group', contact_ids: contactIds };
		this.groups.set(group.id, group);
		return group;
	}

	contact(id) {
		const contact = this.contacts.get(id);
		if (!contact) throw notFound('contact', id);
		return contact;
	}

	// ---- conversations ----

	conversation(id) {
		const conversation = this.conversations.get(id);
		if (!conversation) throw notFound('conversation', id);
		return conversation;
	}

	/** @param {{ contact_id?: string, group_id?: string, created_at?: number }} [conversation] */
	createConversation({ contact_id, group_id, created_at } = {}) {
		const contactId = emptyToNull(contact_id);
		const groupId = emptyToNull(group_id);
		if (contactId === null && groupId === null) {
			throw invalid('Either contact_id or group_id is required');
		}
		if (contactId !== null) this.contact(contactId);
		if (groupId !== null && !this.groups.has(groupId)) throw notFound('group', groupId);
		const conversation = {
			id: this.nextId('conv'),
			contact_id: contactId,
			group_id: groupId,
			pinned_message_id: null,
			is_pinned: false,
			is_muted: false,
			last_active_at: null,
			last_opened_at: null,
			created_at: created_at ?? this.now(),
			archived_at: null,
		};
		this.conversations.set(conversation.id, conversation);
		return conversation;
	}

	updateConversation(id, fields) {
		const conversation = this.conversation(id);
		const next = { ...conversation };
		if ('pinned_message_id' in fields) {
			const messageId = emptyToNull(fields.pinned_message_id);
			if (messageId !== null) {
				const message = this.message(messageId);
				if (message.conversation_id !== id) {
					throw invalid(`Message ${messageId} is not in conversation ${id}`);
				}
			}
			next.pinned_message_id = messageId;
		}
		if ('is_pinned' in fields) next.is_pinned = parseBoolean(fields.is_pinned, 'is_pinned');
		if ('is_muted' in fields) next.is_muted = parseBoolean(fields.is_muted, 'is_muted');
		if ('archived_at' in fields)
			next.archived_at = parseTimestamp(fields.archived_at, 'archived_at');
		this.conversations.set(id, next);
		return next;
	}

	deleteConversation(id) {
		this.conversation(id);
		this.conversations.delete(id);
		for (const [messageId, message] of this.messages) {
			if (message.conversation_id === id) this.messages.delete(messageId);
		}
	}

	listConversations(filters) {
		let list = [...this.conversations.values()];
		/** @type {Array<[string, (c: any) => boolean]>} */
		const flags = [
			['muted', (c) => c.is_muted],
			['archived', (c) => c.archived_at !== null],
			['pinned', (c) => c.is_pinned],
		];
		for (const [name, test] of flags) {
			if (filters[name] === undefined) continue;
			const wanted = parseBoolean(filters[name], name);
			list = list.filter((c) => test(c) === wanted);
		}
		if (filters.group_id !== undefined) list = list.filter((c) => c.group_id === filters.group_id);
		return list;
	}

	// ---- messages ----

	message(id) {
		const message = this.messages.get(id);
		if (!message) throw notFound('message', id);
		return message;
	}

	/**
	 * `created_at` may be given by tests to model clock skew on the service.
	 * @param {string} senderId
	 * @param {{ conversation_id: string, message: string, attachments?: unknown }} fields
	 * @param {{ createdAt?: number }} [options]
	 */
	sendMessage(senderId, { conversation_id, message, attachments }, { createdAt } = {}) {
		if (conversation_id === undefined || conversation_id === '')
			throw invalid('conversation_id is required');
		if (typeof message !== 'string' || message === '') throw invalid('message is required');
		const conversation = this.conversation(conversation_id);
		const sender = this.contact(senderId);
		const now = this.now();
		const sentAt = createdAt ?? now;
		const record = {
			id: this.nextId('msg'),
			conversation_id,
			contact: sender.id,
			message,
			reactions: {},
			attachments: parseAttachments(attachments),
			read_at: null,
			created_at: sentAt,
			updated_at: null,
		};
		this.messages.set(record.id, record);
		const later = (a) => (a === null || a < sentAt ? sentAt : a);
		this.conversations.set(conversation_id, {
			...conversation,
			last_active_at: later(conversation.last_active_at),
		});
		this.contacts.set(sender.id, { ...sender, last_active_at: later(sender.last_active_at) });
		return this.renderMessage(record);
	}

	updateMessage(id, fields) {
		const record = { ...this.message(id) };
		if ('message' in fields) {
			if (typeof fields.message !== 'string' || fields.message === '')
				throw invalid('message must not be empty');
			record.message = fields.message;
		}
		if ('reactions' in fields) record.reactions = parseReactions(fields.reactions);
		if ('attachments' in fields) record.attachments = parseAttachments(fields.attachments);
		record.updated_at = this.now();
		this.messages.set(id, record);
		return this.renderMessage(record);
	}

	deleteMessage(id) {
		this.message(id);
		this.messages.delete(id);
		for (const [conversationId, conversation] of this.conversations) {
			if (conversation.pinned_message_id === id) {
				this.conversations.set(conversationId, { ...conversation, pinned_message_id: null });
			}
		}
	}

	/**
	 * Moves a message (or a conversation) to another creation time after the fact, as services that
	 * re-date records on edit or import do.
	 */
	redate(id, createdAt) {
		if (!Number.isFinite(createdAt))
			throw new TypeError(`redate: createdAt must be a number, got ${createdAt}`);
		if (this.messages.has(id))
			this.messages.set(id, { ...this.messages.get(id), created_at: createdAt });
		else if (this.conversations.has(id))
			this.conversations.set(id, { ...this.conversations.get(id), created_at: createdAt });
		else throw notFound('message or conversation', id);
	}

	/**
	 * A long history, fast: `count` messages in one conversation, `step` units apart, the last at `endAt`
	 * (default now), sent by `senderId` (default the conversation's contact, else ct_me). Returns the first and last ids.
	 * @param {string} conversationId
	 * @param {number} count
	 * @param {{ senderId?: string, endAt?: number, step?: number, text?: (i: number) => string }} [options]
	 */
	addHistory(
		conversationId,
		count,
		{ senderId, endAt, step = 1, text = (i) => `history ${i}` } = {},
	) {
		const conversation = this.conversation(conversationId);
		const sender = this.contact(senderId ?? conversation.contact_id ?? 'ct_me');
		const last = endAt ?? this.now();
		let firstId;
		let lastId;
		for (let i = 0; i < count; i++) {
			const id = this.nextId('msg');
			firstId ??= id;
			lastId = id;
			this.messages.set(id, {
				id,
				conversation_id: conversationId,
				contact: sender.id,
				message: text(i),
				reactions: {},
				attachments: [],
				read_at: null,
				created_at: last - (count - 1 - i) * step,
				updated_at: null,
			});
		}
		if (count > 0) {
			const later = (a) => (a === null || a < last ? last : a);
			this.conversations.set(conversationId, {
				...conversation,
				last_active_at: later(conversation.last_active_at),
			});
			this.contacts.set(sender.id, { ...sender, last_active_at: later(sender.last_active_at) });
		}
		return { firstId, lastId };
	}

	listMessages(filters) {
		let list = [...this.messages.values()];
		if (filters.conversation_id !== undefined) {
			this.conversation(filters.conversation_id);
			list = list.filter((m) => m.conversation_id === filters.conversation_id);
		}
		return list;
	}

	/** The wire form: the sender as a contact object, reactions as an array of `{name: reactors}` objects. */
	renderMessage(record) {
		return {
			...record,
			contact: { ...this.contact(record.contact) },
			reactions: Object.entries(record.reactions).map(([name, reactors]) => ({
				[name]: [...reactors],
			})),
			attachments: record.attachments.map((a) => ({ ...a })),
		};
	}
}

function emptyToNull(value) {
	return value === undefined || value === null || value === '' ? null : String(value);
}

function parseBoolean(value, field) {
	if (value === true || value === 'true' || value === '1') return true;
	if (value === false || value === 'false' || value === '0') return false;
	throw invalid(`${field} must be true or false`);
}

/** Empty string and null clear a timestamp; anything else must be an integer. */
function parseTimestamp(value, field) {
	if (value === null || value === '') return null;
	const text = String(value);
	if (!/^\d+$/.test(text)) throw invalid(`${field} must be an integer timestamp`);
	return Number(text);
}

function parseAttachments(value) {
	if (value === undefined || value === null || value === '') return [];
	const list = Array.isArray(value)
		? value
		: typeof value === 'object'
			? Object.values(value)
			: null;
	if (!list || !list.every((a) => a !== null && typeof a === 'object' && !Array.isArray(a))) {
		throw invalid('attachments must be an array of attachment objects');
	}
	return list;
}

/** Accepts `{name: [reactors]}`, an array of such objects, or '' (no reactions). */
function parseReactions(value) {
	if (value === undefined || value === null || value === '') return {};
	const parts = Array.isArray(value) ? value : [value];
	const merged = Object.create(null); // a reaction may be named `constructor` or `__proto__`
	for (const part of parts) {
		if (part === null || typeof part !== 'object' || Array.isArray(part)) {
			throw invalid('reactions must map reaction names to arrays of reactors');
		}
		for (const [name, reactors] of Object.entries(part)) {
			const list = Array.isArray(reactors) ? reactors : [reactors];
			if (!list.every((r) => typeof r === 'string'))
				throw invalid(`reactions[${name}] must be a list of reactors`);
			merged[name] = [...new Set([...(merged[name] ?? []), ...list])];
		}
	}
	for (const name of Object.keys(merged)) if (merged[name].length === 0) delete merged[name];
	return merged;
}

module.exports = { Store, ServiceError, invalid };
