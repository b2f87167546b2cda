'use strict';
/**
 * The sandbox messaging service: the whole interface of ../shared/spec/messaging-api.md over HTTP,
 * plus what the spec leaves open, decided as documented in the README ("Sandbox service").
 * Also the test double's controls: request log, scripted and random faults, latency, rate limit.
 */
const http = require('node:http');
const qs = require('qs');
const { Store, ServiceError, invalid } = require('./store');
const { seedDemo } = require('./seed');

const DEFAULTS = {
	host: '127.0.0.1',
	port: 0,
	tokens: { 'sandbox-token': 'ct_me' },
	unit: 's',
	order: 'newest_first',
	defaultPageSize: 10,
	maxPageSize: 100,
	latencyMs: 0,
	latencyJitterMs: 0,
	ignoreCursor: false,
	seed: 'demo',
	recordRequests: true,
	faults: {},
	rateLimit: null,
};

/**
 * @param {object} [options] see DEFAULTS; `faults`: { rate429, rate500, rate503, rateDrop, retryAfterSeconds, seed };
 *   `rateLimit`: { perSecond, burst } (a token bucket answering 429 with Retry-After).
 */
function createSandbox(options = {}) {
	const config = { ...DEFAULTS, ...options, faults: { ...options.faults } };
	const store = new Store({ unit: config.unit, clock: options.clock });
	for (const contactId of new Set(Object.values(config.tokens))) {
		store.addContact({ id: contactId, username: contactId === 'ct_me' ? 'me' : contactId });
	}
	if (config.seed === 'demo') seedDemo(store);
	else if (typeof config.seed === 'function') config.seed(store);

	const random = mulberry32(config.faults.seed ?? 1);
	const jitter = mulberry32((config.faults.seed ?? 1) + 1);
	const scripted = [];
	const requests = [];
	let bucket = config.rateLimit ? newBucket(config.rateLimit) : null;
	// inFlight: requests received and not yet answered; peakInFlight: the most at once (the client's concurrency).
	const stats = { requests: 0, rateLimited: 0, faults: 0, inFlight: 0, peakInFlight: 0 };

	const server = http.createServer((req, res) => {
		stats.inFlight += 1;
		stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
		let answered = false;
		const done = () => {
			if (!answered) stats.inFlight -= 1;
			answered = true;
		};
		res.on('finish', done); // the answer is written
		res.on('close', done); // or the connection was dropped without one
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			const delay = config.latencyMs + (config.latencyJitterMs > 0 ? jitter() * config.latencyJitterMs : 0);
			const run = () => handle(req, res, body);
			if (delay > 0) setTimeout(run, delay);
			else run();
		});
	});
	server.keepAliveTimeout = 30_000;

	function handle(req, res, rawBody) {
		stats.requests += 1;
		const url = new URL(req.url, 'http://sandbox');
		const record = {
			method: req.method,
			path: url.pathname,
			query: url.search,
			headers: { ...req.headers },
			body: rawBody,
			status: 0,
		};
		if (config.recordRequests) requests.push(record);
		const reply = (status, payload, headers = {}) => {
			record.status = status;
			const text = payload === undefined ? '' : JSON.stringify(payload);
			res.writeHead(status, {
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(text),
				...headers,
			});
			res.end(text);
		};
		const fail = (status, type, message, headers) => reply(status, { error: { type, message } }, headers);

		const fault = scripted.shift() ?? randomFault();
		if (fault?.drop === 'before') {
			stats.faults += 1;
			record.status = 'dropped';
			req.socket.destroy();
			return;
		}
		if (fault?.status) {
			stats.faults += 1;
			if (fault.status === 429) stats.rateLimited += 1;
			const headers = fault.status === 429 || fault.status === 503 ? retryAfter(fault.retryAfter ?? config.faults.retryAfterSeconds ?? 0) : {};
			if (fault.html !== undefined) {
				record.status = fault.status;
				res.writeHead(fault.status, { 'content-type': 'text/html', ...headers });
				res.end(fault.html);
				return;
			}
			return fail(fault.status, fault.status === 429 ? 'rate_limited' : 'server_error', fault.message ?? defaultFaultMessage(fault.status), headers);
		}

		const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
		const userId = token === undefined ? undefined : config.tokens[token];
		if (userId === undefined) {
			return fail(401, 'unauthorized', token === undefined ? 'Missing bearer token' : 'Invalid access token');
		}
		if (bucket) {
			const waitMs = bucket.take();
			if (waitMs > 0) {
				stats.rateLimited += 1;
				return fail(429, 'rate_limited', 'Too many requests', retryAfter(waitMs / 1000));
			}
		}

		let status = 200;
		let payload;
		try {
			const params = {
				...parseQuery(url.search),
				...parseBody(req.headers['content-type'], rawBody),
			};
			const segments = url.pathname.split('/').slice(1).map(decodeSegment);
			[status, payload] = route(req.method, segments, params, userId);
		} catch (error) {
			if (!(error instanceof ServiceError)) {
				return fail(500, 'server_error', `Internal error: ${error.message}`);
			}
			return fail(error.status, error.type, error.message);
		}
		if (fault?.drop === 'after') {
			// The request was processed, but the client never learns it: the ambiguous failure.
			stats.faults += 1;
			record.status = 'dropped after processing';
			req.socket.destroy();
			return;
		}
		reply(status, payload);
	}

	function route(method, segments, params, userId) {
		const [version, collection, id, ...rest] = segments;
		if (version !== 'v1' || rest.length > 0 || !['messages', 'conversations'].includes(collection)) {
			throw new ServiceError(404, 'not_found', `Unknown endpoint: ${method} /${segments.join('/')}`);
		}
		const isMessages = collection === 'messages';
		if (id === undefined) {
			if (method === 'GET') {
				const all = isMessages ? store.listMessages(params) : store.listConversations(params);
				const rendered = (records) => (isMessages ? records.map((m) => store.renderMessage(m)) : records);
				const page = paginate(all, params);
				return [200, { has_more: page.hasMore, data: rendered(page.data) }];
			}
			if (method === 'POST') {
				return [200, isMessages ? store.sendMessage(userId, params) : store.createConversation(params)];
			}
		} else if (method === 'GET') {
			return [200, isMessages ? store.renderMessage(store.message(id)) : store.conversation(id)];
		} else if (method === 'PUT' || method === 'PATCH') {
			return [200, isMessages ? store.updateMessage(id, params) : store.updateConversation(id, params)];
		} else if (method === 'DELETE') {
			if (isMessages) store.deleteMessage(id);
			else store.deleteConversation(id);
			return [200, { id, deleted: true }];
		}
		throw new ServiceError(405, 'method_not_allowed', `${method} is not allowed on /${segments.join('/')}`);
	}

	/** `{has_more, data}` paging with a `starting_after` cursor (an id), in the configured order. */
	function paginate(records, params) {
		const sign = config.order === 'oldest_first' ? 1 : -1;
		const sorted = [...records].sort(
			(a, b) => sign * (a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
		);
		const limit = parseLimit(params.limit);
		let start = 0;
		if (params.starting_after !== undefined && params.starting_after !== '' && !config.ignoreCursor) {
			const index = sorted.findIndex((r) => r.id === params.starting_after);
			if (index === -1) throw invalid(`starting_after: no such object: ${params.starting_after}`);
			start = index + 1;
		}
		const data = sorted.slice(start, start + limit);
		return { data, hasMore: start + limit < sorted.length };
	}

	function parseLimit(value) {
		if (value === undefined || value === '') return config.defaultPageSize;
		const text = String(value);
		if (!/^\d+$/.test(text) || Number(text) < 1) throw invalid('limit must be a positive integer');
		return Math.min(Number(text), config.maxPageSize);
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
		url: undefined,
		/** Faults for the next requests, one each: { status, retryAfter, message, html } or { drop: 'before' | 'after' }. */
		failNext(...faults) {
			scripted.push(...faults);
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
		/** Changes options of the running service (faults, latency, order, rateLimit, ignoreCursor…). */
		set(changes) {
			Object.assign(config, changes);
			if ('rateLimit' in changes) bucket = changes.rateLimit ? newBucket(changes.rateLimit) : null;
		},
		async start() {
			await new Promise((resolve, reject) => {
				server.once('error', reject);
				server.listen(config.port, config.host, resolve);
			});
			const { port } = server.address();
			sandbox.port = port;
			sandbox.url = `http://${config.host}:${port}`;
			return sandbox;
		},
		async stop() {
			server.closeAllConnections?.();
			await new Promise((resolve) => server.close(() => resolve()));
		},
	};
	return sandbox;
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
			if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
			return parsed;
		} catch {
			throw invalid('Body is not a JSON object');
		}
	}
	const reactions = {};
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

function retryAfter(seconds) {
	return {
		'retry-after': String(Math.max(0, Math.ceil(seconds))),
		'retry-after-ms': String(Math.max(0, Math.round(seconds * 1000))),
	};
}

function defaultFaultMessage(status) {
	if (status === 429) return 'Too many requests';
	if (status === 503) return 'Service temporarily unavailable';
	return 'Internal server error';
}

function newBucket({ perSecond, burst = perSecond }) {
	let tokens = burst;
	let last = performance.now();
	return {
		/** Takes a token; returns 0, or the milliseconds until one is available. */
		take() {
			const now = performance.now();
			tokens = Math.min(burst, tokens + ((now - last) / 1000) * perSecond);
			last = now;
			if (tokens >= 1) {
				tokens -= 1;
				return 0;
			}
			return ((1 - tokens) / perSecond) * 1000;
		},
	};
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
