#!/usr/bin/env node
'use strict';
/**
 * `npm run sandbox -- [options]`: the sandbox messaging service on a loopback port. Everything here is also a
 * `createSandbox({...})` option (in parentheses) and, in-process, changeable while running with `sandbox.set({...})`.
 *
 * Service
 *   --port 4010            (port; 0 = a free one)       --host 127.0.0.1 (host)
 *   --other-port 0         (otherPort) the second origin redirects may point to (a free port by default)
 *   --token T              (tokens: {T: 'ct_me'})       --seed demo|none (seed)
 *   --unit s|ms            (unit) timestamps in seconds or milliseconds
 *   --order newest_first|oldest_first (order)
 *   --max-page-size 100    (maxPageSize) the page cap: a larger `limit` gets this many
 *   --history N            (history) a conversation with contact ct_history and N messages, one unit apart, the
 *                          last now (store.addHistory); its id is `sandbox.historyConversationId`
 *   --latency-ms 0 --latency-jitter-ms 0 (latencyMs, latencyJitterMs)
 *   --ignore-cursor        (ignoreCursor) starting_after ignored: every page is the first
 *   --clock-skew-ms 0      (clockSkewMs) the service's wall clock this far ahead (negative: behind), in its Date
 *                          header, HTTP-date Retry-After and epoch resets
 *   --quiet-log            (recordRequests: false; the CLI's default) / --log-requests (true)
 *
 * Rate limit (rateLimit: {shape, perSecond, burst, limit, windowMs, retryAfterMs, retryAfter, headers, clock})
 *   --rate-limit N         token-bucket: N a second; fixed-/sliding-window: N a window; concurrency: N in flight
 *   --rate-shape token-bucket|fixed-window|sliding-window|concurrency  (shape; default token-bucket)
 *   --rate-burst B         (burst) token-bucket only, default N
 *   --rate-window-ms W     (windowMs) fixed-/sliding-window, default 1000
 *   --rate-retry-after-ms M (retryAfterMs) the wait a concurrency cap's 429 asks for, default 1000
 *   --retry-after seconds|http-date|ms|body|none  (retryAfter) form of Retry-After on 429: whole seconds rounded up,
 *                          an HTTP date, `ms` (seconds rounded up plus a precise `retry-after-ms`), `body` (no header:
 *                          Discord's `"retry_after": 1.234` seconds in the JSON body), or absent.
 *                          Default: `ms` for token-bucket (as before), `seconds` for the other shapes.
 *   --rate-headers none|x-ratelimit|x-ratelimit-epoch|x-ratelimit-reset-after|x-ratelimit-requests|ietf|ietf-draft-07
 *                          (headers) on every answer past the token check: X-RateLimit-Limit/-Remaining/-Reset (Reset
 *                          in seconds until the reset, or with -epoch as Unix seconds; -reset-after: Discord's
 *                          X-RateLimit-Reset-After in seconds with milliseconds; -requests: OpenAI's
 *                          X-RateLimit-Limit-Requests/-Remaining-Requests/-Reset-Requests with a reset such as `1m30s`,
 *                          and a token budget beside it), or the IETF draft's fields: `ietf` = draft 08-10,
 *                          `RateLimit-Policy: "default";q=100;w=60` and `RateLimit: "default";r=50;t=5`;
 *                          `ietf-draft-07` = `RateLimit-Policy: 100;w=60`, `RateLimit: limit=100, remaining=50, reset=5`.
 *
 * Random faults (faults: {...})
 *   --rate-429 0.1 --rate-500 0 --rate-503 0 --rate-drop 0   (rate429, rate500, rate503, rateDrop: a share of requests)
 *   --fault-retry-after S  (retryAfterSeconds) Retry-After of the random 429/503s
 *
 * Quirks (quirks: {...}), all off by default
 *   --list-shape normal|no-data|null-data|bare-array|no-has-more  (listShape) lists without `data`, with `data: null`, bare, or without `has_more`
 *   --endless-pages same|new   (endlessPages) `has_more: true` forever: the same first page, or invented records
 *   --timestamps-as-strings    (timestampsAsStrings: true) every timestamp sent as a numeric string
 *   --echo-authorization       (echoAuthorization) every error text ends with the request's Authorization header
 *   --numeric-ids              (numericIds) ids of digits sent as numbers (msg_00000042 as 42), read back as such
 *   --refuse-large-pages       (refuseLargePages) a limit above the maximum page size is a 400, not a shorter page
 *   --reactions-as-object      (reactionsAsObject) a message's reactions as one {name: reactors} object, not an array
 *   --archived-listed-apart    (archivedListedApart) the listing of every conversation leaves out archived conversations' messages
 *   --ids-ignore-case          (idsIgnoreCase) an id sent in any case (CONV_00000001) is the stored one, written lower case
 *
 * Scripted faults (script: [...]; in-process `sandbox.failNext(...)`)
 *   --fault JSON           repeatable; e.g. '{"match":{"method":"POST","path":"/v1/messages"},"redirect":301,"times":"always"}',
 *                          '{"match":{"method":"DELETE"},"process":true,"status":200,"body":"Deleted","times":"always"}',
 *                          '{"stall":"body"}', '{"redirect":307,"to":"other"}'
 *
 * In-process (`const sandbox = await createSandbox(options).start()`, sandbox/server.js)
 *   sandbox.set({...})     any option above while running (`rateLimit`, `quirks` and `faults` are replaced whole)
 *   sandbox.failNext(f, …) scripted faults, each used by the first request it matches, in order:
 *     match: {method: 'PUT' | ['PUT','PATCH'], path: '/v1/messages' | '/v1/messages/*' | /RegExp/, url: /on path+query/}
 *     times: 1 (default) | N | 'always'
 *     answers (one of):  {}                       lets its request through (a placeholder)
 *       {status, message, retryAfter (s), retryAfterForm, headers, echoAuthorization}  an error, not processed
 *       {status, body, contentType}               any answer, not processed (a string as text/plain, else JSON)
 *       {status, html}                            an HTML page
 *       {redirect: 301|302|303|307|308, to: 'same'|'other'|'relative', location}  Location = the same path+query
 *                                                 on this origin (default), on the second origin, or as a path;
 *                                                 `location` replaces the path (or is used as is when absolute)
 *       {drop: 'before'}                          connection closed, not processed
 *       {stall: 'before'}                         accepted, never answered, not processed
 *       {process: true, status, body, headers}    processed, then answered so (`body` may be a function of the real answer)
 *       {drop: 'after'} | {stall: 'headers'|'body'}  processed, then dropped, or headers (and half the body) sent and stalled
 *     `headers` add to or (null) remove the fault's headers. Stalled sockets and latency timers end with stop().
 *   sandbox.clearFaults(); sandbox.requests / clearRequests(); sandbox.stats {requests, rateLimited, faults,
 *     inFlight, peakInFlight} / resetStats()
 *   sandbox.other          the second origin: url, requests (method, path, query, headers, body), answer
 *                          ({status, body, headers}; default 200 {"has_more":false,"data":[]}), clearRequests()
 *   sandbox.store.redate(id, createdAt)   a message (or conversation) re-dated after creation
 *   sandbox.store.addHistory(conversationId, count, {senderId, endAt, step, text})  a long history, fast
 *   createSandbox({clock: () => ms})      the store's wall clock; rateLimit.clock is the limiter's (monotonic) clock
 */
const { createSandbox } = require('./server');
const { SHAPES, RETRY_AFTER_FORMS, HEADER_FORMS } = require('./limiters');

function parseArgs(argv) {
	const options = { port: 4010, faults: {}, quirks: {}, script: [] };
	const rate = {};
	const number = (text, flag) => {
		const value = Number(text);
		if (text === undefined || !Number.isFinite(value))
			throw new Error(`${flag} needs a number, got ${text}`);
		return value;
	};
	const oneOf = (text, list, flag) => {
		if (!list.includes(text)) throw new Error(`${flag} is one of ${list.join(', ')}`);
		return text;
	};
	for (let i = 0; i < argv.length; i++) {
		const flag = argv[i];
		const next = () => argv[++i];
		switch (flag) {
			case '--port':
				options.port = number(next(), flag);
				break;
			case '--other-port':
				options.otherPort = number(next(), flag);
				break;
			case '--host':
				options.host = next();
				break;
			case '--token':
				options.tokens = { [next()]: 'ct_me' };
				break;
			case '--unit':
				options.unit = next();
				break;
			case '--order':
				options.order = next();
				break;
			case '--max-page-size':
				options.maxPageSize = number(next(), flag);
				break;
			case '--history':
				options.history = number(next(), flag);
				break;
			case '--latency-ms':
				options.latencyMs = number(next(), flag);
				break;
			case '--latency-jitter-ms':
				options.latencyJitterMs = number(next(), flag);
				break;
			case '--clock-skew-ms': {
				const text = next();
				options.clockSkewMs = Number(text); // may be negative: a clock behind
				if (!/^-?\d+$/.test(text ?? '')) throw new Error(`${flag} needs a number, got ${text}`);
				break;
			}
			case '--rate-limit':
				rate.n = number(next(), flag);
				break;
			case '--rate-shape':
				rate.shape = oneOf(next(), SHAPES, flag);
				break;
			case '--rate-burst':
				rate.burst = number(next(), flag);
				break;
			case '--rate-window-ms':
				rate.windowMs = number(next(), flag);
				break;
			case '--rate-retry-after-ms':
				rate.retryAfterMs = number(next(), flag);
				break;
			case '--retry-after':
				rate.retryAfter = oneOf(next(), RETRY_AFTER_FORMS, flag);
				break;
			case '--rate-headers':
				rate.headers = oneOf(next(), HEADER_FORMS, flag);
				break;
			case '--rate-429':
				options.faults.rate429 = number(next(), flag);
				break;
			case '--rate-500':
				options.faults.rate500 = number(next(), flag);
				break;
			case '--rate-503':
				options.faults.rate503 = number(next(), flag);
				break;
			case '--rate-drop':
				options.faults.rateDrop = number(next(), flag);
				break;
			case '--fault-retry-after':
				options.faults.retryAfterSeconds = number(next(), flag);
				break;
			case '--list-shape':
				options.quirks.listShape = next();
				break;
			case '--endless-pages':
				options.quirks.endlessPages = oneOf(next(), ['same', 'new'], flag);
				break;
			case '--timestamps-as-strings':
				options.quirks.timestampsAsStrings = true;
				break;
			case '--echo-authorization':
				options.quirks.echoAuthorization = true;
				break;
			case '--numeric-ids':
				options.quirks.numericIds = true;
				break;
			case '--refuse-large-pages':
				options.quirks.refuseLargePages = true;
				break;
			case '--reactions-as-object':
				options.quirks.reactionsAsObject = true;
				break;
			case '--archived-listed-apart':
				options.quirks.archivedListedApart = true;
				break;
			case '--ids-ignore-case':
				options.quirks.idsIgnoreCase = true;
				break;
			case '--fault':
				options.script.push(parseJson(next(), flag));
				break;
			case '--ignore-cursor':
				options.ignoreCursor = true;
				break;
			case '--seed':
				options.seed = next();
				break;
			case '--quiet-log':
				options.recordRequests = false;
				break;
			case '--log-requests':
				options.recordRequests = true;
				break;
			default:
				throw new Error(`Unknown option ${flag} (see the header of sandbox/cli.js)`);
		}
	}
	if (!['s', 'ms'].includes(options.unit ?? 's')) throw new Error('--unit is s or ms');
	if (!['newest_first', 'oldest_first'].includes(options.order ?? 'newest_first'))
		throw new Error('--order is newest_first or oldest_first');
	if (Object.keys(rate).length > 0) {
		if (rate.n === undefined)
			throw new Error('--rate-limit N is needed with the other --rate-* options');
		const { n, ...rest } = rate;
		const shape = rate.shape ?? 'token-bucket';
		options.rateLimit =
			shape === 'token-bucket' ? { ...rest, perSecond: n } : { ...rest, limit: n };
	}
	options.recordRequests ??= false;
	return options;
}

function parseJson(text, flag) {
	try {
		return JSON.parse(text);
	} catch {
		throw new Error(`${flag} needs JSON, got ${text}`);
	}
}

async function main() {
	let options;
	let sandbox;
	try {
		options = parseArgs(process.argv.slice(2));
		sandbox = createSandbox(options);
	} catch (error) {
		console.error(error.message);
		process.exit(2);
	}
	await sandbox.start();
	const token = Object.keys(sandbox.config.tokens)[0];
	console.log(
		`Sandbox messaging service on ${sandbox.url} (base URL for the credential); second origin on ${sandbox.other.url}`,
	);
	console.log(
		`Access token: ${token}; timestamps in ${sandbox.config.unit === 'ms' ? 'milliseconds' : 'seconds'}; lists ${sandbox.config.order.replace('_', ' ')}`,
	);
	if (sandbox.historyConversationId)
		console.log(`History: ${options.history} messages in ${sandbox.historyConversationId}`);
	console.log(`Try: curl -H 'Authorization: Bearer ${token}' ${sandbox.url}/v1/conversations`);
	const stop = async () => {
		await sandbox.stop();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

if (require.main === module) main();

module.exports = { parseArgs };
