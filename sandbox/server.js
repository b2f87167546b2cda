'use strict';
/**
 * The sandbox messaging service: the whole interface of the service's interface document (kept by the team
 * beside this repository, not in it) over HTTP,
 * plus what the spec leaves open, decided as documented in the README ("Sandbox service").
 * Also the test double's controls: request log, scripted and random faults, latency, rate limits of
 * several shapes (./limiters.js), quirks of real services (./quirks.js), and a second origin for redirects
 * (./otherOrigin.js). The routes and pages are ./lists.js, the faults ./faults.js, the request's parsing ./parse.js.
 * Every option and control is listed in the header of ./cli.js.
 */
const http = require('node:http');
const { Store, ServiceError } = require('./store');
const { seedDemo } = require('./seed');
const { createFileStore, parseMultipart } = require('./attachments');
const {
	createLimiter,
	retryAfterHeaders,
	retryAfterBody,
	rateLimitHeaders,
} = require('./limiters');
const { validateQuirks, shapeAnswer, storedIds, idsAnyCase } = require('./quirks');
const { decodeSegment, parseQuery, parseBody } = require('./parse');
const { createRoutes } = require('./lists');
const {
	createFaults,
	isAfterProcessing,
	answerFault,
	answerWith,
	mulberry32,
} = require('./faults');
const { createOtherOrigin } = require('./otherOrigin');

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

	const faults = createFaults(config);
	const jitter = mulberry32((config.faults.seed ?? 1) + 1);
	const requests = [];
	const timers = new Set();
	let limiter = createLimiter(config.rateLimit);
	/** The service's wall clock as its answers show it (clockSkewMs). */
	const wallClock = () => Date.now() + config.clockSkewMs;
	const route = createRoutes(store, config);
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
			const shaped = status < 300 ? shapeAnswer(payload, config.quirks) : payload;
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

		const fault = faults.take(req.method, url);
		if (fault && !isAfterProcessing(fault)) {
			stats.faults += 1;
			const location = (f) => redirectLocation(f, url);
			const now = wallClock;
			return answerFault(fault, {
				req,
				record,
				send,
				reply,
				withEcho,
				stats,
				config,
				location,
				now,
			});
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
			if (config.quirks.idsIgnoreCase) [segments, params] = idsAnyCase(segments, params);
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
				send,
				fault.status ?? status,
				body,
				{ ...limitHeaders, ...fault.headers },
				fault.contentType,
			);
		}
		reply(status, payload, limitHeaders);
	}

	function redirectLocation(f, url) {
		const target = f.location ?? url.pathname + url.search;
		if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return target;
		if (f.to === 'relative') return target;
		return `${f.to === 'other' ? other.url : sandbox.url}${target}`;
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
		failNext(...scriptedFaults) {
			faults.add(...scriptedFaults);
		},
		/** Drops the scripted faults not yet used. */
		clearFaults() {
			faults.clear();
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

module.exports = { createSandbox };
