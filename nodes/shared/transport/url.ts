/** Pure: the service's address and the request URLs built on it. */
import type { FormValue } from './form';
import { encodeForm } from './form';

/** `https://host/api/`, `https://host/api/v1` and `https://host/api` all mean the same service. */
export function normalizeBaseUrl(baseUrl: string): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/v1$/i, '')
		.replace(/\/+$/, '');
}

/** Why a Base URL cannot be used: user info would be sent and printed, a query glued onto every path. */
export function baseUrlProblem(baseUrl: string): string | undefined {
	const text = normalizeBaseUrl(baseUrl);
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return 'is not a URL';
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		return 'must start with http:// or https://';
	if (url.username || url.password) {
		return 'must not contain a user name or password (put the access token in its own field)';
	}
	if (url.search || text.includes('?')) return 'must not contain a query (?…)';
	if (url.hash || text.includes('#')) return 'must not contain a fragment (#…)';
	return undefined;
}

/** One path segment, percent-encoded so that `/`, `?`, `#` or `%` in an id can never change the endpoint. */
export function encodePathSegment(segment: string): string {
	if (segment === '' || segment === '.' || segment === '..') {
		// URL parsers resolve `.` and `..` (even percent-encoded) as dot-segments: they can never be sent as ids.
		throw new Error(`"${segment}" cannot be used as an ID`);
	}
	return encodeURIComponent(segment);
}

/** `/v1/<encoded segments>`: how a request is named in errors and logs. */
export function requestPath(path: string[]): string {
	return `/v1/${path.map(encodePathSegment).join('/')}`;
}

export function buildUrl(
	baseUrl: string,
	request: { path: string[]; query?: { [key: string]: FormValue } },
): string {
	const query = request.query ? encodeForm(request.query) : '';
	return `${normalizeBaseUrl(baseUrl)}${requestPath(request.path)}${query ? `?${query}` : ''}`;
}

/** A redirect target as it may be shown: origin and path only (no user info, query or fragment). */
export function describeLocation(location: unknown, requestUrl: string): string {
	if (typeof location !== 'string' || location.trim() === '') return '(no Location header)';
	try {
		const url = new URL(location.trim(), requestUrl);
		return `${url.origin}${url.pathname}`;
	} catch {
		return '(an invalid Location header)';
	}
}
