import type {
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';

import type { FormValue } from './form';
import type { RetryPolicy } from './retry';
import type { RequestPace } from './pacer';

export type RequestContext =
	| IExecuteFunctions
	| IPollFunctions
	| ILoadOptionsFunctions
	| ITriggerFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path segments below `/v1`, each sent as one percent-encoded segment. */
	path: string[];
	query?: { [key: string]: FormValue };
	body?: { [key: string]: FormValue };
}

/**
 * What a successful answer must be: `list` a `{ data: [...] }` page, `record` one object with an id,
 * `none` anything (its body is not read: a 2xx DELETE is done whatever it says).
 */
export type ExpectedAnswer = 'list' | 'record' | 'none';

export interface RequestOptions {
	itemIndex?: number;
	/** Shared by the requests of one run, so a rate limit slows all of them down together. */
	pacer?: RequestPace;
	expect?: ExpectedAnswer;
	/** Milliseconds one attempt may take before it counts as failed (default DEFAULT_TIMEOUT_MS). */
	timeoutMs?: number;
	retry?: RetryPolicy;
}
