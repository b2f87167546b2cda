'use strict';
/** The sandbox reading a request: path segments, the query, a form or JSON body (reaction names kept whole). */
const qs = require('qs');
const { invalid } = require('./store');

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

module.exports = { decodeSegment, parseQuery, parseBody };
