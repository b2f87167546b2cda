'use strict';
/** The sandbox's endpoints over the store: the routes, and `{has_more, data}` pages in the configured order. */
const { ServiceError, invalid } = require('./store');
const { shapeList } = require('./quirks');

/** `config` is read live: the order, page sizes and quirks may change while the service runs. */
function createRoutes(store, config) {
	let endlessCount = 0;
	const listCache = { version: -1, entries: new Map() };

	function route(method, segments, params, userId) {
		const [version, collection, id, ...rest] = segments;
		if (
			version !== 'v1' ||
			rest.length > 0 ||
			!['messages', 'conversations'].includes(collection)
		) {
			throw new ServiceError(
				404,
				'not_found',
				`Unknown endpoint: ${method} /${segments.join('/')}`,
			);
		}
		const isMessages = collection === 'messages';
		if (id === undefined) {
			if (method === 'GET') {
				const page = paginate(isMessages, params);
				const data = isMessages ? page.data.map((m) => store.renderMessage(m)) : page.data;
				return [200, shapeList(config.quirks.listShape, page.hasMore, data)];
			}
			if (method === 'POST') {
				return [
					200,
					isMessages ? store.sendMessage(userId, params) : store.createConversation(params),
				];
			}
		} else if (method === 'GET') {
			return [200, isMessages ? store.renderMessage(store.message(id)) : store.conversation(id)];
		} else if (method === 'PUT' || method === 'PATCH') {
			return [
				200,
				isMessages ? store.updateMessage(id, params) : store.updateConversation(id, params),
			];
		} else if (method === 'DELETE') {
			if (isMessages) store.deleteMessage(id);
			else store.deleteConversation(id);
			return [200, { id, deleted: true }];
		}
		throw new ServiceError(
			405,
			'method_not_allowed',
			`${method} is not allowed on /${segments.join('/')}`,
		);
	}

	/** `{has_more, data}` paging with a `starting_after` cursor (an id), in the configured order. */
	function paginate(isMessages, params) {
		const limit = parseLimit(params.limit);
		const endless = config.quirks.endlessPages;
		const cursor = params.starting_after === '' ? undefined : params.starting_after;
		if (endless === 'new' && /_endless_\d+$/.test(cursor ?? '')) {
			return { data: fabricate(isMessages, params, limit), hasMore: true };
		}
		const { sorted, index } = sortedList(isMessages, params);
		let start = 0;
		if (cursor !== undefined && !config.ignoreCursor && endless !== 'same') {
			const at = index.get(cursor);
			if (at === undefined) throw invalid(`starting_after: no such object: ${cursor}`);
			start = at + 1;
		}
		const data = sorted.slice(start, start + limit);
		if (endless === 'new')
			return {
				data: [...data, ...fabricate(isMessages, params, limit - data.length)],
				hasMore: true,
			};
		return { data, hasMore: endless === 'same' || start + limit < sorted.length };
	}

	/** The sorted records of a list, kept while the store is unchanged so that long histories page cheaply. */
	function sortedList(isMessages, params) {
		if (listCache.version !== store.version || listCache.entries.size > 32) {
			listCache.entries.clear();
			listCache.version = store.version;
		}
		const { limit, starting_after, ...filters } = params;
		const key = JSON.stringify([
			isMessages,
			config.order,
			config.quirks.archivedListedApart,
			filters,
		]);
		let entry = listCache.entries.get(key);
		if (!entry) {
			const sign = config.order === 'oldest_first' ? 1 : -1;
			const unknown =
				config.quirks.unknownListsEmpty &&
				isMessages &&
				filters.conversation_id !== undefined &&
				!store.conversations.has(filters.conversation_id);
			const apart =
				config.quirks.archivedListedApart && isMessages && filters.conversation_id === undefined;
			const listed = unknown
				? []
				: isMessages
					? store
							.listMessages(params)
							.filter((m) => !apart || !store.conversations.get(m.conversation_id)?.archived_at)
					: store.listConversations(params);
			const sorted = listed.sort(
				(a, b) => sign * (a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
			);
			entry = { sorted, index: new Map(sorted.map((r, i) => [r.id, i])) };
			listCache.entries.set(key, entry);
		}
		return entry;
	}

	/** Records the service invents for `endlessPages: 'new'` (never stored). */
	function fabricate(isMessages, params, count) {
		const created = store.now();
		return Array.from({ length: Math.max(0, count) }, () => {
			endlessCount += 1;
			const n = String(endlessCount).padStart(8, '0');
			if (!isMessages) {
				return {
					id: `conv_endless_${n}`,
					contact_id: store.contacts.keys().next().value,
					group_id: null,
					pinned_message_id: null,
					is_pinned: false,
					is_muted: false,
					last_active_at: null,
					last_opened_at: null,
					created_at: created,
					archived_at: null,
				};
			}
			return {
				id: `msg_endless_${n}`,
				conversation_id: params.conversation_id ?? 'conv_endless',
				contact: store.contacts.keys().next().value,
				message: `endless ${endlessCount}`,
				reactions: {},
				attachments: [],
				read_at: null,
				created_at: created,
				updated_at: null,
			};
		});
	}

	function parseLimit(value) {
		if (value === undefined || value === '') return config.defaultPageSize;
		const text = String(value);
		if (!/^\d+$/.test(text) || Number(text) < 1) throw invalid('limit must be a positive integer');
		if (config.quirks.refuseLargePages && Number(text) > config.maxPageSize)
			throw invalid(`limit must be between 1 and ${config.maxPageSize}`);
		return Math.min(Number(text), config.maxPageSize);
	}

	return route;
}

module.exports = { createRoutes };
