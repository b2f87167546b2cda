'use strict';
/**
 * A small Messaging service over loopback for the trigger's service variants the sandbox does not act
 * out: a list sorted by insertion rather than created_at (a late or bridged message lands at the top of
 * a newest-first list), numeric or UUID message ids, numeric contact ids, and an unknown cursor answered
 * with an empty page. Only what the trigger calls: GET /v1/messages and GET /v1/conversations/{id}.
 */
const http = require('node:http');
const crypto = require('node:crypto');

const CONTACT_NUMBERS = { ct_me: 1, ct_ann: 2, ct_bob: 3 };

/**
 * options: order ('newest_first' | 'oldest_first'), sortBy ('created_at' | 'insertion'), idStyle
 * ('prefixed' | 'numeric' | 'uuid'), numericContacts, pageCap, unknownCursor ('400' | 'empty'),
 * clock (milliseconds, the service's own).
 */
async function startVariantService(options = {}) {
	const config = {
		order: 'newest_first',
		sortBy: 'created_at',
		idStyle: 'prefixed',
		numericContacts: false,
		pageCap: 100,
		unknownCursor: '400',
		clock: () => Date.now(),
		...options,
	};
	const messages = [];
	const conversations = [];
	const requests = [];
	let sequence = 0;
	const newId = (prefix) => {
		sequence += 1;
		if (config.idStyle === 'numeric') return sequence;
		if (config.idStyle === 'uuid') {
			// Deterministic, and as unordered as real UUIDs.
			const hex = crypto.createHash('sha1').update(`${prefix}${sequence}`).digest('hex');
			return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
		}
		return `${prefix}_${sequence}`;
	};
	const contactId = (id) => (config.numericContacts ? CONTACT_NUMBERS[id] : id);
	const seconds = (ms) => Math.floor(ms / 1000);

	const service = {
		config,
		messages,
		requests,
		addConversation({ contactId: contact = 'ct_ann' } = {}) {
			const conversation = { id: newId('conv'), contact_id: contact, group_id: null };
			conversations.push(conversation);
			return conversation;
		},
		/** A message; `createdMs` on the service's clock (default: now). */
		/** @param {{ conversation?: object, from?: string, text?: string, createdMs?: number }} [message] */
		addMessage({ conversation = conversations[0], from = 'ct_ann', text, createdMs } = {}) {
			const message = {
				id: newId('msg'),
				conversation_id: conversation.id,
				from,
				text,
				createdMs: createdMs ?? config.clock(),
				inserted: messages.length,
			};
			messages.push(message);
			return message;
		},
		messageRequests: () => requests.filter((r) => r.path === '/v1/messages'),
	};

	const render = (m) => ({
		id: m.id,
		conversation_id: m.conversation_id,
		contact: { id: contactId(m.from), username: m.from.replace(/^ct_/, '') },
		message: m.text,
		reactions: [],
		attachments: [],
		created_at: seconds(m.createdMs),
	});
	const sorted = () => {
		const key = config.sortBy === 'insertion' ? (m) => m.inserted : (m) => seconds(m.createdMs);
		const list = [...messages].sort((a, b) => key(a) - key(b) || a.inserted - b.inserted);
		return config.order === 'newest_first' ? list.reverse() : list;
	};
	const json = (res, status, body) => {
		res.writeHead(status, { 'content-type': 'application/json' });
		res.end(JSON.stringify(body));
	};

	const sockets = new Set();
	const server = http.createServer((req, res) => {
		const url = new URL(req.url, 'http://loopback');
		requests.push({ method: req.method, path: url.pathname, query: url.search });
		if (req.method === 'GET' && url.pathname === '/v1/messages') {
			const conversation = url.searchParams.get('conversation_id');
			let list = sorted().filter(
				(m) => !conversation || String(m.conversation_id) === conversation,
			);
			const cursor = url.searchParams.get('starting_after');
			if (cursor) {
				const at = list.findIndex((m) => String(m.id) === cursor);
				if (at < 0) {
					if (config.unknownCursor === 'empty')
						return json(res, 200, { has_more: false, data: [] });
					return json(res, 400, { error: { message: `No such message: ${cursor}` } });
				}
				list = list.slice(at + 1);
			}
			const limit = Math.min(Number(url.searchParams.get('limit') ?? 10), config.pageCap);
			return json(res, 200, {
				has_more: list.length > limit,
				data: list.slice(0, limit).map(render),
			});
		}
		const message = /^\/v1\/messages\/([^/]+)$/.exec(url.pathname);
		if (req.method === 'GET' && message) {
			const found = sorted().find((m) => String(m.id) === decodeURIComponent(message[1]));
			if (!found) return json(res, 404, { error: { message: 'No such message' } });
			return json(res, 200, render(found));
		}
		const conversation = /^\/v1\/conversations\/([^/]+)$/.exec(url.pathname);
		if (req.method === 'GET' && conversation) {
			const found = conversations.find((c) => String(c.id) === decodeURIComponent(conversation[1]));
			if (!found) return json(res, 404, { error: { message: 'No such conversation' } });
			return json(res, 200, {
				id: found.id,
				contact_id: contactId(found.contact_id),
				group_id: found.group_id,
			});
		}
		return json(res, 404, { error: { message: 'Not found' } });
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	service.credentials = {
		baseUrl: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/v1`,
		accessToken: 'variant-token',
		timestampUnit: 'auto',
		ownContactId: '',
	};
	service.stop = async () => {
		for (const socket of sockets) socket.destroy();
		await new Promise((resolve) => server.close(resolve));
	};
	return service;
}

module.exports = { startVariantService };
