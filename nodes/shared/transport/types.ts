import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';

import type { FormValue } from './form';
import type { RetryPolicy } from './retry';
import type { ExpectedAnswer } from './outcome';
import type { AcquireOptions, Pacer } from './pacing/pacer';

export type { ExpectedAnswer } from './outcome';

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
	rawBody?: RawBody;
}

/** A body the caller builds (a file upload), sent instead of the form-encoded `body`. */
export interface RawBody {
	contentType: string;
	/** Bytes, known before any is read: the Content-Length. */
	length: number;
	/** The body of one attempt, opened afresh for each: a retry reads the files again. */
	open(): Promise<Buffer | BodyStream>;
}

/** A Node.js readable stream, as far as the transport uses it; `errored` is why reading it failed. */
export interface BodyStream {
	pipe(...args: never[]): unknown;
	destroy(error?: Error): unknown;
	readonly errored?: unknown;
}

/** The item's place among the run's items in progress, lent while it waits out a short 429. */
export interface Lane {
	/** False when no more may be lent. */
	lend(): boolean;
	/** Before any new item gets one. */
	reclaim(): Promise<void>;
}

export interface RequestOptions extends Pick<AcquireOptions, 'deadline' | 'throughRefusal'> {
	itemIndex?: number;
	/** Shared by the requests of one run, so a rate limit slows all of them together. */
	pacer?: Pacer;
	lane?: Lane;
	expect?: ExpectedAnswer;
	/** One attempt's, default DEFAULT_TIMEOUT_MS. */
	timeoutMs?: number;
	retry?: RetryPolicy;
	/** Told the service's time (serviceNow) with each answer: the trigger dates activation by it. */
	onServiceTime?: (serviceNowMs: number) => void;
	/** Told every answer (any status, each attempt's): Check Compatibility reads headers and error bodies. */
	onAnswer?: (answer: { status: number; headers: IDataObject; body: unknown }) => void;
}
