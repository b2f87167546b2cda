/** One HTTP request through n8n's authenticated client, bounded in time. */
import type { ICredentialsDecrypted, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './credentials';
import { encodeForm } from './form';
import { countedAs, networkFailure, type AttemptResult, type RawResponse } from './outcome';
import type { ApiRequest, RequestContext } from './types';

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
		httpOptions.headers!['Content-Type'] = request.rawBody.contentType;
		httpOptions.body = request.rawBody.open();
	} else if (request.body !== undefined) {
		httpOptions.headers!['Content-Type'] = 'application/x-www-form-urlencoded';
		httpOptions.body = encodeForm(request.body);
	}
	return httpOptions;
}

/** n8n's idle timeout, cut to the deadline; the whole attempt gives up a little later, so a trickle cannot hold it. */
export async function attempt(
	context: RequestContext,
	httpOptions: IHttpRequestOptions,
	credentials: ICredentialsDecrypted,
	deadline?: number,
): Promise<AttemptResult> {
	const timeoutMs =
		deadline === undefined
			? httpOptions.timeout!
			: Math.max(1, Math.min(httpOptions.timeout!, deadline - Date.now()));
	const request = context.helpers.httpRequestWithAuthentication
		.call(
			context,
			CREDENTIAL_TYPE,
			{ ...httpOptions, headers: { ...httpOptions.headers } },
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
		return await Promise.race([request, timedOut]);
	} finally {
		answered.abort(ANSWERED);
	}
}
