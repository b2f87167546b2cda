'use strict';
/**
 * The sandbox's faults: scripted ones (failNext; see the README for their forms), random ones (`faults` rates,
 * seeded), and the answers of those that come before the work. Faults after it (isAfterProcessing) are answered by
 * the server once the request was processed.
 */
const { retryAfterHeaders, retryAfterBody, RETRY_AFTER_FORMS } = require('./limiters');

const STALLS = ['before', 'headers', 'body'];
const REDIRECTS = [301, 302, 303, 307, 308];

/** The faults waiting for requests; `config.faults` (rates, seed) is read live. */
function createFaults(config) {
	const random = mulberry32(config.faults.seed ?? 1);
	const scripted = [];
	return {
		add(...faults) {
			scripted.push(...faults.map(validateFault));
		},
		clear() {
			scripted.length = 0;
		},
		/** The fault this request meets, if any: the first scripted one it matches, else a random one. */
		take(method, url) {
			const fault = takeScripted(method, url);
			return fault?.pass ? undefined : (fault ?? randomFault());
		},
	};

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

/**
 * A fault that comes before the work, answered through the request's own `send`, `reply` and `withEcho`;
 * `location(f)`: a redirect's target, `now()`: the service's clock.
 */
function answerFault(f, { req, record, send, reply, withEcho, stats, config, location, now }) {
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
		return send(f.redirect, '', withoutNulls({ location: location(f), ...f.headers }));
	}
	if (f.status === 429) stats.rateLimited += 1;
	const retryForm = f.retryAfterForm ?? 'ms';
	const retryMs = (f.retryAfter ?? config.faults.retryAfterSeconds ?? 0) * 1000;
	const asksToWait = f.status === 429 || f.status === 503;
	const retry = asksToWait ? retryAfterHeaders(retryForm, retryMs, now()) : {};
	const headers = { ...retry, ...f.headers };
	if (f.html !== undefined)
		return send(f.status, f.html, withoutNulls({ 'content-type': 'text/html', ...headers }));
	if (f.body !== undefined || f.status < 400)
		return answerWith(send, f.status, f.body, headers, f.contentType);
	const type = f.status === 429 ? 'rate_limited' : f.status >= 500 ? 'server_error' : 'error';
	const message = withEcho(f.message ?? defaultFaultMessage(f.status), f.echoAuthorization);
	const fields = asksToWait ? retryAfterBody(retryForm, retryMs) : {};
	return reply(f.status, { error: { type, message }, ...fields }, withoutNulls(headers));
}

/** A scripted answer: a string as is (text/plain unless told), anything else as JSON. */
function answerWith(send, answerStatus, body, headers, contentType) {
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

function withoutNulls(headers) {
	return Object.fromEntries(
		Object.entries(headers).filter(([, value]) => value !== null && value !== undefined),
	);
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

module.exports = {
	createFaults,
	isAfterProcessing,
	answerFault,
	answerWith,
	withoutNulls,
	mulberry32,
};
