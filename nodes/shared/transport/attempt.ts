/** One HTTP request through n8n's authenticated client, bounded in time. */
import type { ICredentialsDecrypted, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './credentials';
import { encodeForm } from './form';
import { countedAs, networkFailure, type AttemptResult, type RawResponse } from './outcome';
import type { ApiRequest, BodyStream, RawBody, RequestContext } from './types';

/** How much longer than the idle timeout a whole attempt may take. */
const DEADLINE_GRACE_MS = 1_000;

/** abort() without a reason builds a DOMException, stack and all, for every request. */
const ANSWERED = new Error('The request was answered');

export function buildHttpOptions(
	request: ApiRequest,
	url: string,
	timeoutMs: number,
): IHttpRequestOptions {
	const httpOptions: IHttpRequestOptions = {
		method: request.method,
		url,
		headers: { Accept: 'application/json' },
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// A redirect could carry the token to another origin, or turn a POST into a GET: never followed.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		timeout: timeoutMs,
	};
	if (request.rawBody) {
		// In an array (one header line all the same): n8n turns a body sent as exactly
		// application/x-www-form-urlencoded into URLSearchParams, which fails on a buffer or a stream.
		httpOptions.headers!['Content-Type'] = [request.rawBody.contentType];
		httpOptions.headers!['Content-Length'] = String(request.rawBody.length);
	} else if (request.body !== undefined) {
		httpOptions.headers!['Content-Type'] = 'application/x-www-form-urlencoded';
		httpOptions.body = encodeForm(request.body);
	}
	return httpOptions;
}

/**
 * n8n's idle timeout, cut to the deadline; the whole attempt gives up a little later, so a trickle cannot hold it.
 * A raw body is opened for this attempt and closed after it; a body that could not be read is the attempt's error.
 */
export async function attempt(
	context: RequestContext,
	httpOptions: IHttpRequestOptions,
	credentials: ICredentialsDecrypted,
	deadline?: number,
	rawBody?: RawBody,
): Promise<AttemptResult> {
	const timeoutMs =
		deadline === undefined
			? httpOptions.timeout!
			: Math.max(1, Math.min(httpOptions.timeout!, deadline - Date.now()));
	const body = rawBody ? await rawBody.open() : httpOptions.body;
	const stream = rawBody && !Buffer.isBuffer(body) ? (body as BodyStream) : undefined;
	const request = context.helpers.httpRequestWithAuthentication
		.call(
			context,
			CREDENTIAL_TYPE,
			{ ...httpOptions, headers: { ...httpOptions.headers }, body },
			{ credentialsDecrypted: { ...credentials, data: { ...credentials.data } } },
		)
		.then(
			(response): AttemptResult => ({ response: countedAs(response as RawResponse) }),
			(error: unknown): AttemptResult => ({ failure: networkFailure(error) }),
		);
	const answered = new AbortController();
	const timedOut = sleep(timeoutMs + DEADLINE_GRACE_MS, answered.signal).then(
		(): AttemptResult => ({ failure: { kind: 'timeout', code: 'ETIMEDOUT' } }),
		(): AttemptResult => ({ failure: { kind: 'other' } }), // cleared: the request ended first
	);
	try {
		const result = await Promise.race([request, timedOut]);
		if (stream?.errored) throw stream.errored;
		return result;
	} finally {
		answered.abort(ANSWERED);
		stream?.destroy();
	}
}
