/** A body the caller builds (a multipart upload), opened anew per attempt: no retry sends a half-read one. */
import type { IHttpRequestOptions } from 'n8n-workflow';

export interface RawBody {
	contentType: string;
	open(): Buffer;
}

export function withRawBody(httpOptions: IHttpRequestOptions, raw: RawBody): IHttpRequestOptions {
	return {
		...httpOptions,
		headers: { ...httpOptions.headers, 'Content-Type': raw.contentType },
		body: raw.open(),
	};
}
