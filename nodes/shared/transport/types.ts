import type {
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';

import type { FormValue } from './form';
import type { RawBody } from './rawBody';
import type { RetryPolicy } from './retry';
import type { Pacer } from './pacing/pacer';

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
	/** Sent instead of `body` (a multipart upload): rawBody.ts. */
	rawBody?: RawBody;
}

/**
 * What a successful answer must be: `list` a `{ data: [...] }` page, `record` one object with an id,
 * `none` anything (its body is not read: a 2xx DELETE is done whatever it says).
 */
export type ExpectedAnswer = 'list' | 'record' | 'none';

/**
 * The place the request's item holds among the run's items in progress (Parallel Requests). A request
 * waiting out a short 429 lends it to the next item and takes one back when its wait ends.
 */
export interface Lane {
	/** Lends the caller's place; false when no more may be lent. */
	lend(): boolean;
	/** A place again after a lent wait, before any new item gets one. */
	reclaim(): Promise<void>;
}

export interface RequestOptions {
	itemIndex?: number;
	/** Shared by the requests of one run, so a rate limit slows all of them down together. */
	pacer?: Pacer;
	/** The item's place among the run's items in progress, lent while a request waits out a short 429. */
	lane?: Lane;
	expect?: ExpectedAnswer;
	/** Milliseconds one attempt may take before it counts as failed (default DEFAULT_TIMEOUT_MS). */
	timeoutMs?: number;
	retry?: RetryPolicy;
	/**
	 * Epoch ms past which the request neither waits for an answer nor retries (a wait for a reply ends
	 * then): each attempt's timeout is cut to it, and a retry that would start after it is not made.
	 */
	deadline?: number;
	/** Send and Wait's checks: they go on when a storm stopped the run's other requests. */
	throughRefusal?: boolean;
	/**
	 * Told the service's time when it answers: its Date header when that is more than 2 s from this
	 * machine's clock, else ours (retryAfter.ts, serviceNow). The trigger dates activation by it.
	 */
	onServiceTime?: (serviceNowMs: number) => void;
}
