/**
 * A request body the caller builds itself (a multipart upload), instead of the form-encoded `body`.
 * It is opened anew for each attempt, so a retried request never sends a half-read body.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

export interface RawBody {
	contentType: string;
	/** The bytes of one attempt. */
	open(): Buffer;
}

/** The attempt's options with the raw body in place of any form body. */
export function withRawBody(httpOptions: IHttpRequestOptions, raw: RawBody): IHttpRequestOptions {
	return {
		...httpOptions,
		headers: { ...httpOptions.headers, 'Content-Type': raw.contentType },
		body: raw.open(),
	};
}
