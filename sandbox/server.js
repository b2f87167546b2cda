'use strict';
/**
 * The sandbox messaging service: the whole interface of the service's interface document (kept by the team
 * beside this repository, not in it) over HTTP,
 * plus what the spec leaves open, decided as documented in the README ("Sandbox service").
 * Also the test double's controls: request log, scripted and random faults, latency, rate limits of
 * several shapes (./limiters.js), quirks of real services, and a second origin for redirects.
 * Every option and control is listed in the header of ./cli.js.
 */
const http = require('node:http');
const qs = require('qs');
const { Store, ServiceError, invalid } = require('./store');
const { seedDemo } = require('./seed');
const { createFileStore, parseMultipart, validateAttachmentQuirks } = require('./attachments');
const {
	createLimiter,
	retryAfterHeaders,
	retryAfterBody,
	rateLimitHeaders,
	RETRY_AFTER_FORMS,
} = require('./limiters');

const DEFAULTS = {
	host: '127.0.0.1',
	port: 0,
	otherPort: 0,
	tokens: { 'sandbox-token': 'ct_me' },
	unit: 's',
	order: 'newest_first',
	defaultPageSize: 10,
	maxPageSize: 100,
	latencyMs: 0,
	latencyJitterMs: 0,
	/** How far the service's wall clock is ahead of this machine's (negative: behind), as its Date header,
	 * its HTTP-date Retry-After and its epoch resets show it: a host without NTP. */
	clockSkewMs: 0,
	ignoreCursor: false,
	seed: 'demo',
	recordRequests: true,
	faults: {},
	rateLimit: null,
	history: 0,
	quirks: {},
	script: [],
};

const LIST_SHAPES = ['normal', 'no-data', 'null-data', 'bare-array', 'no-has-more'];
const TIMESTAMP_FIELDS = [
	'created_at',
	'updated_at',
	'read_at',
	'last_active_at',
	'last_opened_at',
	'archived_at',
];
const STALLS = ['before', 'headers', 'body'];
const REDIRECTS = [301, 302, 303, 307, 308];

/**
 * @param {object} [options] see DEFAULTS and the README ("Sandbox service"); `faults`: { rate429, rate500,
 *   rate503, rateDrop, retryAfterSeconds, seed }; `rateLimit`: see ./limiters.js; `quirks`: see validateQuirks;
 *   `script`: scripted faults active from the start (as `failNext`).
 */
function createSandbox(options = {}) {
	const config = {
		...DEFAULTS,
		...options,
		faults: { ...options.faults },
		quirks: validateQuirks({ ...options.quirks }),
	};
	// The service's records are dated on its own clock, as its Date header (clockSkewMs, read live).
	const store = new Store({
		unit: config.unit,
		clock: options.clock ?? (() => Date.now() + config.clockSkewMs),
	});
	for (const contactId of new Set(Object.values(config.tokens))) {
		store.addContact({ id: contactId, username: contactId === 'ct_me' ? 'me' : contactId });
	}
	if (config.seed === 'demo') seedDemo(store);
	else if (typeof config.seed === 'function') config.seed(store);
	// `history: N`: a conversation with a long past, for paging and polling costs.
	let historyConversationId;
	if (config.history > 0) {
		if (!store.contacts.has('ct_history'))
			store.addContact({ id: 'ct_history', username: 'history' });
		historyConversationId = store.createConversation({ contact_id: 'ct_history' }).id;
		store.addHistory(historyConversationId, config.history);
	}

	const random = mulberry32(config.faults.seed ?? 1);
	const jitter = mulberry32((config.faults.seed ?? 1) + 1);
	const scripted = [];
	const requests = [];
	const timers = new Set();
	let limiter = createLimiter(config.rateLimit);
	/** The service's wall clock as its answers show it (clockSkewMs). */
	const wallClock = () => Date.now() + config.clockSkewMs;
	let endlessCount = 0;
	const listCache = { version: -1, entries: new Map() };
	// inFlight: requests received and not yet answered; peakInFlight: the most at once (the client's concurrency).
	const stats = { requests: 0, rateLimited: 0, faults: 0, inFlight: 0, peakInFlight: 0 };
	const files = createFileStore();
	const other = createOtherOrigin(config, files);

	const server = http.createServer((req, res) => {
		stats.inFlight += 1;
		stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
		// A cap on requests in flight decides on arrival; the slot is held until the answer is written.
		const cap = limiter?.shape === 'concurrency' ? limiter : null;
		const admitted = cap ? cap.acquire() : undefined;
		let answered = false;
		const done = () => {
			if (!answered) {
				stats.inFlight -= 1;
				if (admitted) cap.release();
			}
			answered = true;
		};
		res.on('finish', done); // the answer is written
		res.on('close', done); // or the connection was dropped without one
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const raw = Buffer.concat(chunks);
			const body = raw.toString('utf8');
			const delay =
				config.latencyMs + (config.latencyJitterMs > 0 ? jitter() * config.latencyJitterMs : 0);
			const run = () => handle(req, res, body, admitted, raw);
			if (delay > 0) {
				const timer = setTimeout(() => {
					timers.delete(timer);
					run();
				}, delay);
				timers.add(timer);
			} else run();
		});
	});
	server.keepAliveTimeout = 30_000;

	function handle(req, res, rawBody, admitted, rawBytes) {
		stats.requests += 1;
		const url = new URL(req.url, 'http://sandbox');
		const record = {
			method: req.method,
			path: url.pathname,
			query: url.search,
			headers: { ...req.headers },
			body: rawBody,
			/** The answer's status, or what became of the request instead (dropped, stalled). */
			status: /** @type {number | string} */ (0),
		};
		// A multipart body's bytes as received (its files are not UTF-8 text).
		if (/^multipart\//.test(req.headers['content-type'] ?? '')) record.bytes = rawBytes;
		if (config.recordRequests) requests.push(record);
		const send = (status, text, headers) => {
			record.status = status;
			res.writeHead(status, {
				'content-length': Buffer.byteLength(text),
				date: new Date(wallClock()).toUTCString(),
				...headers,
			});
			res.end(text);
		};
		const reply = (status, payload, headers = {}) => {
			let shaped =
				status < 300 && config.quirks.timestampsAsStrings
					? stringifyTimestamps(payload, config.quirks.timestampsAsStrings)
					: payload;
			if (status < 300 && config.quirks.numericIds) shaped = numericIds(shaped);
			if (status < 300 && config.quirks.reactionsAsObject) shaped = reactionsAsObject(shaped);
			send(status, shaped === undefined ? '' : JSON.stringify(shaped), {
				'content-type': 'application/json',
				...headers,
			});
		};
		const withEcho = (message, always) =>
			always || config.quirks.echoAuthorization
				? `${message} [debug] Authorization: ${req.headers.authorization ?? '(none)'}`
				: message;
		const fail = (status, type, message, headers, fields = {}) =>
			reply(status, { error: { type, message: withEcho(message) }, ...fields }, headers);

		const scriptedFault = takeScripted(req.method, url);
		const fault = scriptedFault?.pass ? undefined : (scriptedFault ?? randomFault());
		if (fault && !isAfterProcessing(fault)) {
			stats.faults += 1;
			return answerFault(fault);
		}

		const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
		const userId = token === undefined ? undefined : config.tokens[token];
		if (userId === undefined) {
			return fail(
				401,
				'unauthorized',
				token === undefined ? 'Missing bearer token' : 'Invalid access token',
			);
		}
		let limitHeaders = {};
		if (limiter) {
			const now = limiter.clock();
			const { allowed, waitMs } =
				limiter.shape === 'concurrency'
					? { allowed: admitted !== false, waitMs: limiter.retryAfterMs }
					: limiter.take(now);
			limitHeaders = rateLimitHeaders(limiter.headers, limiter.state(now), wallClock());
			if (!allowed) {
				stats.rateLimited += 1;
				return fail(
					429,
					'rate_limited',
					'Too many requests',
					{ ...limitHeaders, ...retryAfterHeaders(limiter.retryAfter, waitMs, wallClock()) },
					retryAfterBody(limiter.retryAfter, waitMs),
				);
			}
		}

		if (req.method === 'GET' && files.serve(url.pathname, res)) {
			record.status = 200;
			return;
		}
		let status = 200;
		let payload;
		try {
			const contentType = req.headers['content-type'] ?? '';
			const multipart = contentType.startsWith('multipart/form-data')
				? parseMultipart(contentType, rawBytes)
				: undefined;
			let params = {
				...parseQuery(url.search),
				...(multipart ? parseQuery(`?${multipart.query}`) : parseBody(contentType, rawBody)),
			};
			if ('attachments' in params) {
				params.attachments = files.ingest(
					params.attachments,
					multipart?.uploads ?? new Map(),
					config.quirks,
					{ own: sandbox.url, other: other.url },
				);
			}
			let segments = url.pathname.split('/').slice(1).map(decodeSegment);
			if (config.quirks.numericIds) [segments, params] = storedIds(segments, params);
			[status, payload] = route(req.method, segments, params, userId);
		} catch (error) {
			if (!(error instanceof ServiceError)) {
				return fail(500, 'server_error', `Internal error: ${error.message}`, limitHeaders);
			}
			return fail(error.status, error.type, error.message, limitHeaders);
		}
		if (fault) {
			// The request was processed; what the client learns of it is the fault's.
			stats.faults += 1;
			if (fault.drop === 'after') {
				// The ambiguous failure: the client never learns the outcome.
				record.status = 'dropped after processing';
				req.socket.destroy();
				return;
			}
			if (fault.stall) {
				const text = JSON.stringify(payload);
				record.status = fault.stall === 'headers' ? 'stalled after headers' : 'stalled mid-body';
				res.writeHead(status, {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(text),
					...limitHeaders,
				});
				if (fault.stall === 'headers') res.flushHeaders();
				else res.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
				return; // never ends; stop() closes the connection
			}
			const body = typeof fault.body === 'function' ? fault.body(payload) : fault.body;
			return answerWith(
				fault.status ?? status,
				body,
				{ ...limitHeaders, ...fault.headers },
				fault.contentType,
			);
		}
		reply(status, payload, limitHeaders);

		function answerFault(f) {
			if (f.drop === 'before') {
				record.status = 'dropped';
				req.socket.destroy();
				return;
			}
			if (f.stall === 'before') {
				record.status = 'stalled';
				return; // accepted, never answered; stop() closes the connection
			}
			if (f.redirect) {
				return send(
					f.redirect,
					'',
					withoutNulls({ location: redirectLocation(f, url), ...f.headers }),
				);
			}
			if (f.status === 429) stats.rateLimited += 1;
			const retryForm = f.retryAfterForm ?? 'ms';
			const retryMs = (f.retryAfter ?? config.faults.retryAfterSeconds ?? 0) * 1000;
			const asksToWait = f.status === 429 || f.status === 503;
			const retry = asksToWait ? retryAfterHeaders(retryForm, retryMs, wallClock()) : {};
			const headers = { ...retry, ...f.headers };
			if (f.html !== undefined)
				return send(f.status, f.html, withoutNulls({ 'content-type': 'text/html', ...headers }));
			if (f.body !== undefined || f.status < 400)
				return answerWith(f.status, f.body, headers, f.contentType);
			const type = f.status === 429 ? 'rate_limited' : f.status >= 500 ? 'server_error' : 'error';
			const message = withEcho(f.message ?? defaultFaultMessage(f.status), f.echoAuthorization);
			const fields = asksToWait ? retryAfterBody(retryForm, retryMs) : {};
			return reply(f.status, { error: { type, message }, ...fields }, withoutNulls(headers));
		}

		/** A scripted answer: a string as is (text/plain unless told), anything else as JSON. */
		function answerWith(answerStatus, body, headers, contentType) {
			if (typeof body === 'string') {
				return send(
					answerStatus,
					body,
					withoutNulls({ 'content-type': contentType ?? 'text/plain; charset=utf-8', ...headers }),
				);
			}
			const text = body === undefined ? '' : JSON.stringify(body);
			return send(
				answerStatus,
				text,
				withoutNulls({ 'content-type': contentType ?? 'application/json', ...headers }),
			);
		}
	}

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
				return [200, shapeList(page.hasMore, data)];
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

	function shapeList(hasMore, data) {
		switch (config.quirks.listShape) {
			case 'no-data':
				return { has_more: hasMore };
			case 'null-data':
				return { has_more: hasMore, data: null };
			case 'bare-array':
				return data;
			case 'no-has-more':
				return { data };
			default:
				return { has_more: hasMore, data };
		}
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
		const key = JSON.stringify([isMessages, config.order, filters]);
		let entry = listCache.entries.get(key);
		if (!entry) {
			const sign = config.order === 'oldest_first' ? 1 : -1;
			const unknown =
				config.quirks.unknownListsEmpty &&
				isMessages &&
				filters.conversation_id !== undefined &&
				!store.conversations.has(filters.conversation_id);
			const listed = unknown
				? []
				: isMessages
					? store.listMessages(params)
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

	function takeScripted(method, url) {
		const at = scripted.findIndex((f) => matches(f.match, method, url));
		if (at === -1) return undefined;
		const fault = scripted[at];
		if (fault.times !== 'always' && fault.times !== Infinity) {
			if ((fault.times ?? 1) <= 1) scripted.splice(at, 1);
			else fault.times -= 1;
		}
		return fault;
	}

	function redirectLocation(f, url) {
		const target = f.location ?? url.pathname + url.search;
		if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return target;
		if (f.to === 'relative') return target;
		return `${f.to === 'other' ? other.url : sandbox.url}${target}`;
	}

	function randomFault() {
		const f = config.faults;
		const roll = random();
		let edge = 0;
		for (const [rate, fault] of [
			[f.rate429, { status: 429 }],
			[f.rate500, { status: 500 }],
			[f.rate503, { status: 503 }],
			[f.rateDrop, { drop: 'before' }],
		]) {
			edge += rate ?? 0;
			if (roll < edge) return fault;
		}
		return undefined;
	}

	const sandbox = {
		store,
		requests,
		stats,
		config,
		/** The second origin (another loopback port): `url`, `requests` (as received), `answer`, `clearRequests()`. */
		other,
		/** Stored attachment files by id ({ bytes, name, mimeType }): ./attachments.js. */
		files: files.files,
		/** Stores a file; its URL on this origin (`other`: on the second origin). */
		addFile(bytes, name, mimeType, { other: onOther = false } = {}) {
			return `${onOther ? other.url : sandbox.url}${files.add(bytes, name, mimeType)}`;
		},
		/** The conversation `history: N` filled, if any. */
		historyConversationId,
		url: undefined,
		/**
		 * Scripted faults, each used by the first request it matches (see the README): { status, retryAfter,
		 * retryAfterForm, message, html, body, contentType, headers, echoAuthorization }, { drop: 'before' | 'after' },
		 * { stall: 'before' | 'headers' | 'body' }, { redirect: 301|302|303|307|308, to, location }, { process: true, ... };
		 * any of them with `match: {method, path, url}` and `times` (a count or 'always').
		 */
		failNext(...faults) {
			scripted.push(...faults.map(validateFault));
		},
		/** Drops the scripted faults not yet used. */
		clearFaults() {
			scripted.length = 0;
		},
		/** Forgets the request log and the peak of requests in flight. */
		clearRequests() {
			requests.length = 0;
			stats.peakInFlight = stats.inFlight;
		},
		/** Zeroes the request, 429 and fault counters. */
		resetStats() {
			Object.assign(stats, {
				requests: 0,
				rateLimited: 0,
				faults: 0,
				peakInFlight: stats.inFlight,
			});
		},
		/** Changes options of the running service (faults, latency, order, rateLimit, quirks, maxPageSize, ignoreCursor…). */
		set(changes) {
			const next = { ...changes };
			if ('quirks' in next) next.quirks = validateQuirks({ ...next.quirks });
			const nextLimiter = 'rateLimit' in next ? createLimiter(next.rateLimit) : limiter;
			Object.assign(config, next);
			limiter = nextLimiter;
		},
		async start() {
			await new Promise((resolve, reject) => {
				server.once('error', reject);
				server.listen(config.port, config.host, () => resolve(undefined));
			});
			const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
			sandbox.port = port;
			sandbox.url = `http://${config.host}:${port}`;
			await other.start();
			return sandbox;
		},
		async stop() {
			for (const timer of timers) clearTimeout(timer);
			timers.clear();
			server.closeAllConnections?.();
			await Promise.all([new Promise((resolve) => server.close(() => resolve())), other.stop()]);
		},
	};
	sandbox.failNext(...(config.script ?? []));
	return sandbox;
}

/**
 * The second origin: another HTTP server on another loopback port, a stand-in for "somewhere else" a
 * redirect may point. It records every request in full (headers and body) and answers `answer`.
 */
function createOtherOrigin(config, files) {
	const requests = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const url = new URL(req.url, 'http://other');
			requests.push({
				method: req.method,
				path: url.pathname,
				query: url.search,
				headers: { ...req.headers },
				body: Buffer.concat(chunks).toString('utf8'),
			});
			if (req.method === 'GET' && files.serve(url.pathname, res)) return;
			const { status, body, headers } = other.answer;
			const text = typeof body === 'string' ? body : JSON.stringify(body);
			res.writeHead(status, {
				'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
				'content-length': Buffer.byteLength(text),
				...headers,
			});
			res.end(text);
		});
	});
	const other = {
		url: undefined,
		requests,
		/** What it answers to everything: by default a 200 that looks like an empty list. */
		answer: { status: 200, body: { has_more: false, data: [] }, headers: {} },
		clearRequests() {
			requests.length = 0;
		},
		async start() {
			await new Promise((resolve, reject) => {
				server.once('error', reject);
				server.listen(config.otherPort, config.host, () => resolve(undefined));
			});
			other.port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
			other.url = `http://${config.host}:${other.port}`;
		},
		async stop() {
			if (!server.listening) return;
			server.closeAllConnections?.();
			await new Promise((resolve) => server.close(() => resolve()));
		},
	};
	return other;
}

/**
 * Quirks: behaviours of real services the spec does not show, all off by default.
 *   listShape: 'normal' | 'no-data' | 'null-data' | 'bare-array' | 'no-has-more' (`data` only)
 *   endlessPages: false | 'same' (has_more forever, the cursor ignored) | 'new' (has_more forever, invented records)
 *   timestampsAsStrings: false | true (every timestamp field) | ['created_at', …] (numbers sent as numeric strings)
 *   echoAuthorization: false | true (every error text ends with the request's Authorization header)
 *   numericIds: false | true (ids are numbers: msg_00000042 is sent as 42, and 42 is read back as it)
 *   refuseLargePages: false | true (a limit above maxPageSize is a 400 naming the maximum, not a shorter page)
 *   unknownListsEmpty: false | true (messages of a conversation that does not exist list as an empty page, not a 404)
 *   reactionsAsObject: false | true (a message's reactions as one `{name: reactors}` object, not an array of them)
 *   attachmentFields, attachmentUpload, attachmentsOrigin, inlineAttachments: see ./attachments.js
 */
function validateQuirks(quirks) {
	const known = [
		'listShape',
		'endlessPages',
		'timestampsAsStrings',
		'echoAuthorization',
		'numericIds',
		'refuseLargePages',
		'unknownListsEmpty',
		'reactionsAsObject',
		'attachmentFields',
		'attachmentUpload',
		'attachmentsOrigin',
		'inlineAttachments',
	];
	validateAttachmentQuirks(quirks);
	for (const key of Object.keys(quirks))
		if (!known.includes(key)) throw new Error(`Unknown quirk ${key} (known: ${known.join(', ')})`);
	if (quirks.listShape !== undefined && !LIST_SHAPES.includes(quirks.listShape)) {
		throw new Error(`quirks.listShape is one of ${LIST_SHAPES.join(', ')}`);
	}
	if (![undefined, false, 'same', 'new'].includes(quirks.endlessPages))
		throw new Error("quirks.endlessPages is false, 'same' or 'new'");
	const stamps = quirks.timestampsAsStrings;
	if (
		Array.isArray(stamps)
			? !stamps.every((f) => TIMESTAMP_FIELDS.includes(f))
			: ![undefined, false, true].includes(stamps)
	) {
		throw new Error(
			`quirks.timestampsAsStrings is true, false or a list of ${TIMESTAMP_FIELDS.join(', ')}`,
		);
	}
	return quirks;
}

function validateFault(fault) {
	const f = { ...fault };
	if (f.stall !== undefined && !STALLS.includes(f.stall))
		throw new Error(`fault.stall is one of ${STALLS.join(', ')}`);
	if (f.redirect !== undefined && !REDIRECTS.includes(f.redirect))
		throw new Error(`fault.redirect is one of ${REDIRECTS.join(', ')}`);
	if (f.drop !== undefined && !['before', 'after'].includes(f.drop))
		throw new Error("fault.drop is 'before' or 'after'");
	if (f.retryAfterForm !== undefined && !RETRY_AFTER_FORMS.includes(f.retryAfterForm)) {
		throw new Error(`fault.retryAfterForm is one of ${RETRY_AFTER_FORMS.join(', ')}`);
	}
	if (
		f.times !== undefined &&
		f.times !== 'always' &&
		!(Number.isInteger(f.times) && f.times > 0) &&
		f.times !== Infinity
	) {
		throw new Error("fault.times is a positive integer or 'always'");
	}
	const answers = [f.drop, f.stall, f.redirect, f.status, f.process && 'process'].filter(
		(x) => x !== undefined && x !== false,
	);
	// `{}` (with `match`/`times` if wanted): a placeholder that lets its request through, to aim the next fault.
	f.pass = answers.length === 0;
	if (f.pass && Object.keys(f).some((key) => !['match', 'times', 'pass'].includes(key))) {
		throw new Error(
			'a fault needs one of status, drop, stall, redirect or process ({} lets a request through)',
		);
	}
	return f;
}

/** Faults that let the service do the work first: the ambiguous and the misleading answers. */
function isAfterProcessing(fault) {
	return (
		fault.drop === 'after' ||
		fault.stall === 'headers' ||
		fault.stall === 'body' ||
		fault.process === true
	);
}

/** `match`: { method: 'GET' | ['PUT', 'PATCH'], path: '/v1/messages' | '/v1/messages/*' | RegExp, url: RegExp on path+query }. */
function matches(match, method, url) {
	if (!match) return true;
	if (
		match.method !== undefined &&
		![].concat(match.method).some((m) => m.toUpperCase() === method)
	)
		return false;
	if (match.path !== undefined) {
		const { path } = match;
		const ok =
			path instanceof RegExp
				? path.test(url.pathname)
				: path.endsWith('*')
					? url.pathname.startsWith(path.slice(0, -1))
					: path === url.pathname;
		if (!ok) return false;
	}
	if (match.url !== undefined && !new RegExp(match.url).test(url.pathname + url.search))
		return false;
	return true;
}

function withoutNulls(headers) {
	return Object.fromEntries(
		Object.entries(headers).filter(([, value]) => value !== null && value !== undefined),
	);
}

function stringifyTimestamps(value, fields) {
	const wanted = fields === true ? TIMESTAMP_FIELDS : fields;
	const walk = (v) => {
		if (Array.isArray(v)) return v.map(walk);
		if (v === null || typeof v !== 'object') return v;
		return Object.fromEntries(
			Object.entries(v).map(([k, x]) => [
				k,
				wanted.includes(k) && typeof x === 'number' ? String(x) : walk(x),
			]),
		);
	};
	return walk(value);
}

/** reactionsAsObject: each message's `[{like: [...]}, {rocket: [...]}]` as `{like: [...], rocket: [...]}`. */
function reactionsAsObject(value) {
	const message = (m) =>
		Array.isArray(m?.reactions) ? { ...m, reactions: Object.assign({}, ...m.reactions) } : m;
	if (Array.isArray(value?.data)) return { ...value, data: value.data.map(message) };
	return message(value);
}

/** The id fields a numericIds service sends as numbers, and the prefix each has in the store. */
const ID_PREFIX = {
	id: undefined, // any of them
	conversation_id: 'conv',
	contact_id: 'ct',
	group_id: 'grp',
	pinned_message_id: 'msg',
};

/** numericIds: every stored id of digits (msg_00000042, ct_00000007) as its number; others (ct_ann) as they are. */
function numericIds(value) {
	const walk = (v, key) => {
		if (Array.isArray(v)) return key === 'contact_ids' ? v.map((x) => walk(x, 'id')) : v.map(walk);
		if (typeof v === 'string' && key in ID_PREFIX && /^[a-z]+_\d+$/.test(v))
			return Number(v.slice(v.indexOf('_') + 1));
		if (v === null || typeof v !== 'object') return v;
		return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
	};
	return walk(value);
}

/** numericIds: a number the client sends back (in the path or a parameter) as the stored id it stands for. */
function storedIds(segments, params) {
	const stored = (prefix, text) =>
		/^\d+$/.test(String(text)) ? `${prefix}_${String(text).padStart(8, '0')}` : text;
	const collection = segments[1] === 'messages' ? 'msg' : 'conv';
	const path = segments.map((segment, i) => (i === 2 ? stored(collection, segment) : segment));
	const read = { ...params };
	if (read.starting_after !== undefined)
		read.starting_after = stored(collection, read.starting_after);
	for (const [field, prefix] of Object.entries(ID_PREFIX))
		if (prefix && read[field] !== undefined) read[field] = stored(prefix, read[field]);
	return [path, read];
}

function decodeSegment(segment) {
	try {
		return decodeURIComponent(segment);
	} catch {
		throw invalid(`Malformed path segment: ${segment}`);
	}
}

function parseQuery(search) {
	return search.length > 1 ? qs.parse(search.slice(1), { depth: 5, arrayLimit: 1000 }) : {};
}

/**
 * Form bodies go through qs, except `reactions[<name>][]` keys: a reaction name may itself hold
 * brackets, which qs would read as nesting, so those keys are matched on the still-encoded text.
 */
function parseBody(contentType = '', raw) {
	if (raw === '') return {};
	if (contentType.startsWith('application/json')) {
		try {
			const parsed = JSON.parse(raw);
			if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
				throw new Error('not an object');
			return parsed;
		} catch {
			throw invalid('Body is not a JSON object');
		}
	}
	const reactions = Object.create(null); // a reaction may be named `constructor` or `__proto__`
	let sawReactions = false;
	const rest = [];
	for (const pair of raw.split('&')) {
		if (pair === '') continue;
		const [key, value = ''] = splitOnce(pair, '=');
		const match = /^reactions\[([^[\]]*)\]\[\]$/.exec(key);
		if (match) {
			sawReactions = true;
			const name = formDecode(match[1]);
			(reactions[name] ??= []).push(formDecode(value));
		} else if (key === 'reactions') {
			sawReactions = true;
			if (value !== '') throw invalid('reactions must be sent as reactions[<name>][]=<reactor>');
		} else {
			rest.push(pair);
		}
	}
	const params = qs.parse(rest.join('&'), { depth: 5, arrayLimit: 1000 });
	if (sawReactions) params.reactions = reactions;
	return params;
}

function splitOnce(text, separator) {
	const at = text.indexOf(separator);
	return at === -1 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}

function formDecode(text) {
	try {
		return decodeURIComponent(text.replace(/\+/g, ' '));
	} catch {
		throw invalid(`Malformed form encoding: ${text}`);
	}
}

function defaultFaultMessage(status) {
	if (status === 429) return 'Too many requests';
	if (status === 503) return 'Service temporarily unavailable';
	return 'Internal server error';
}

/** A small seeded PRNG so that random faults repeat from run to run. */
function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

module.exports = { createSandbox };
