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
	pacer?: RequestPace;
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
	/**
	 * Told the service's time when it answers: its Date header when that is more than 2 s from this
	 * machine's clock, else ours (retryAfter.ts, serviceNow). The trigger dates activation by it.
	 */
	onServiceTime?: (serviceNowMs: number) => void;
}

export interface ResponseInfo {
	status: number;
	/** The response headers, any case; values may be arrays. */
	headers: Record<string, unknown> | undefined;
	/** The response body (a 429's may carry its retry_after). */
	body?: unknown;
	/** When the request started (the clock's time after its turn's wait). */
	startedAt: number;
	/** Requests in flight when it started, itself included (what admit() passed it). */
	inFlight?: number;
}

/** A reserved start: when it was reserved, and the start it holds after waiting `wait` ms. */
export interface Turn {
	wait: number;
	start: number;
	reservedAt: number;
}

/**
 * Told once a request may go: the number in flight (itself included) and the moment it was let go (its
 * start, for onResponse), or undefined when it is to take a new turn first.
 */
export type Admitted = (inFlight: number | undefined, sentAt?: number) => void;
