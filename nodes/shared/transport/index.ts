/**
 * Every request of the package goes through `messagingApiRequest`: URL building with encoded path
 * segments, form bodies, bearer authentication through n8n's credential machinery, retries that are
 * safe, and errors a person can read. Nothing here ever puts the access token into an error or a log.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { encodeForm, type FormValue } from './form';
import type { TimestampUnitSetting } from '../timestamps';

export const CREDENTIAL_TYPE = 'messagingApi';

export type RequestContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path segments below `/v1`, each sent as one percent-encoded segment. */
	path: string[];
	query?: { [key: string]: FormValue };
	body?: { [key: string]: FormValue };
}

export interface RequestOptions {
	itemIndex?: number;
	/** Shared by the requests of one run, so a rate limit slows all of them down together. */
	throttle?: Throttle;
	/** What a successful answer must be; anything else is an error naming what came back. */
	expect?: 'list' | 'record' | 'any';
}

export interface RetryPolicy {
	/** Attempts in all, the first one included, counting failures other than 429. */
	maxAttempts: number;
	/** How many 429 answers one request accepts (each followed by the service's Retry-After). */
	maxRateLimited: number;
	/** The most a request waits between its attempts, summed. */
	maxTotalWaitMs: number;
	/** Backoff when the service gives no Retry-After: base * 2^(attempt-1), capped. */
	baseDelayMs: number;
	maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
	maxAttempts: 6,
	maxRateLimited: 12,
	maxTotalWaitMs: 60_000,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
};

export interface MessagingCredentials {
	baseUrl: string;
	timestampUnit?: TimestampUnitSetting;
	ownContactId?: string;
}

/**
 * The pace shared by the concurrent requests of one run. A 429 holds every request until the service's
 * Retry-After and from then on spaces request starts at least that far apart: for a token bucket the
 * wait it names is the time to its next token, i.e. its rate. Each success shrinks the gap by 3%, so the
 * pace creeps back up until the next 429 names the rate again. A rate limit slows the whole run to the
 * service's rate instead of setting off a storm of retries that each fail again.
 */
export class Throttle {
	private resumeAt = 0;
	private nextStart = 0;
	private spacingMs = 0;
	private lastSlowdown = -Infinity;

	constructor(private readonly clock: () => number = Date.now) {}

	/**
	 * `startedAt`: when the rejected request was sent. Requests sent before the last slowdown were paced
	 * the old way, so their 429s are the same event, not new information.
	 */
	onRateLimited(waitMs: number, startedAt: number = this.clock()): void {
		const now = this.clock();
		this.resumeAt = Math.max(this.resumeAt, now + waitMs);
		if (startedAt > this.lastSlowdown) {
			const next = waitMs > 0 ? Math.max(waitMs, this.spacingMs) : this.spacingMs * 2;
			this.spacingMs = Math.min(MAX_SPACING_MS, Math.max(MIN_SPACING_MS, next));
			this.lastSlowdown = now;
		}
	}

	onSuccess(): void {
		this.spacingMs = this.spacingMs < 0.5 ? 0 : this.spacingMs * 0.97;
	}

	/** Milliseconds the next request must wait before it starts; reserves its start. */
	reserve(): number {
		const now = this.clock();
		const start = Math.max(now, this.resumeAt, this.nextStart);
		this.nextStart = start + this.spacingMs;
		return start - now;
	}

	/** Waits for this request's turn; returns how long that took. */
	async waitTurn(): Promise<number> {
		const wait = this.reserve();
		if (wait > 0) await sleep(wait);
		return wait;
	}
}

const MIN_SPACING_MS = 2;
const MAX_SPACING_MS = 2_000;

// ---------- pure helpers ----------

/** `https://host/api/`, `https://host/api/v1` and `https://host/api` all mean the same service. */
export function normalizeBaseUrl(baseUrl: string): string {
	let url = String(baseUrl ?? '').trim();
	url = url.replace(/\/+$/, '').replace(/\/v1$/i, '').replace(/\/+$/, '');
	return url;
}

/** One path segment, percent-encoded so that `/`, `?`, `#` or `%` in an id can never change the endpoint. */
export function encodePathSegment(segment: string): string {
	if (segment === '' || segment === '.' || segment === '..') {
		// URL parsers resolve `.` and `..` (even percent-encoded) as dot-segments: they can never be sent as ids.
		throw new Error(`"${segment}" cannot be used as an ID`);
	}
	return encodeURIComponent(segment);
}

export function buildUrl(baseUrl: string, request: Pick<ApiRequest, 'path' | 'query'>): string {
	const path = request.path.map(encodePathSegment).join('/');
	const query = request.query ? encodeForm(request.query) : '';
	return `${normalizeBaseUrl(baseUrl)}/v1/${path}${query ? `?${query}` : ''}`;
}

/** Milliseconds the service asked us to wait: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date. */
export function retryAfterMs(headers: IDataObject | undefined, now = Date.now()): number | undefined {
	if (!headers) return undefined;
	const header = (name: string) => {
		const value = headers[name] ?? headers[name.toLowerCase()];
		return value === undefined || value === null ? undefined : String(value).trim();
	};
	const milliseconds = header('retry-after-ms');
	if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds)) return Number(milliseconds);
	const retryAfter = header('retry-after');
	if (retryAfter === undefined) return undefined;
	if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
	const date = Date.parse(retryAfter);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The service's own error text from a body of unknown shape: JSON (several conventions), HTML or plain text. */
export function serviceErrorText(body: unknown): string | undefined {
	if (body === undefined || body === null) return undefined;
	if (typeof body === 'object') {
		const record = body as IDataObject;
		const error = record.error;
		const candidates = [
			error && typeof error === 'object' ? (error as IDataObject).message : error,
			record.message,
			record.error_description,
			record.detail,
			Array.isArray(record.errors) ? (record.errors[0] as IDataObject)?.message ?? record.errors[0] : undefined,
		];
		const found = candidates.find((c) => typeof c === 'string' && c.trim() !== '');
		return typeof found === 'string' ? found.trim() : undefined;
	}
	const text = String(body).trim();
	if (text === '') return undefined;
	try {
		return serviceErrorText(JSON.parse(text)) ?? undefined;
	} catch {
		// Not JSON: an HTML error page or plain text, shown without its markup.
	}
	const plain = text
		.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
	return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain || undefined;
}

/** `other`: the request failed inside n8n before reaching the network (no network error code). */
export type FailureKind = 'status' | 'unreachable' | 'dropped' | 'other';

/** Whether a failed attempt may be repeated: never when a POST may have reached the service. */
export function isRetryable(method: string, kind: FailureKind, status?: number): boolean {
	// A wrong Base URL or a stopped service does not heal in seconds: say so at once, naming the URL.
	if (kind === 'unreachable' || kind === 'other') return false;
	const idempotent = method !== 'POST';
	if (kind === 'dropped') return idempotent;
	if (status === 429) return true; // rejected by the rate limiter, not processed
	return idempotent && (status === 502 || status === 503 || status === 504);
}

export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
	const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(exponential * (0.75 + random() * 0.5));
}

// ---------- I/O ----------

const credentialCache = new WeakMap<object, Promise<ICredentialDataDecryptedObject>>();

/**
 * The credential, read once per node run, not once per request: in n8n each read loads and decrypts it
 * from the database (measured: about 15 ms, one at a time). Requests then hand it to
 * httpRequestWithAuthentication, which still applies the credential's own `authenticate`.
 */
async function credentialData(this: RequestContext): Promise<ICredentialDataDecryptedObject> {
	let cached = credentialCache.get(this);
	if (!cached) {
		cached = this.getCredentials(CREDENTIAL_TYPE);
		credentialCache.set(this, cached);
		cached.catch(() => credentialCache.delete(this));
	}
	return await cached;
}

export async function getMessagingCredentials(this: RequestContext): Promise<MessagingCredentials> {
	return (await credentialData.call(this)) as unknown as MessagingCredentials;
}

interface Failure {
	kind: FailureKind;
	status?: number;
	response?: RawResponse;
	code?: string;
	message?: string;
}

interface RawResponse {
	body: unknown;
	headers: IDataObject;
	statusCode: number;
}

const UNREACHABLE_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];

export async function messagingApiRequest(
	this: RequestContext,
	request: ApiRequest,
	options: RequestOptions = {},
): Promise<IDataObject> {
	const { itemIndex } = options;
	const data = await credentialData.call(this);
	const credentials = data as unknown as MessagingCredentials;
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: this.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? CREDENTIAL_TYPE,
		name: this.getNode().credentials?.[CREDENTIAL_TYPE]?.name ?? 'Messaging API',
		type: CREDENTIAL_TYPE,
		data,
	};
	const baseUrl = normalizeBaseUrl(credentials.baseUrl);
	if (!/^https?:\/\/[^/]+/i.test(baseUrl)) {
		throw new NodeOperationError(
			this.getNode(),
			`The Base URL "${credentials.baseUrl}" of the Messaging API credential is not an http(s) URL`,
			{ itemIndex },
		);
	}
	let url: string;
	try {
		url = buildUrl(baseUrl, request);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), (error as Error).message, { itemIndex });
	}
	const where = `${request.method} /v1/${request.path.map(encodePathSegment).join('/')}`;
	const httpOptions: IHttpRequestOptions = {
		method: request.method,
		url,
		headers: { Accept: 'application/json' },
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	if (request.body !== undefined) {
		httpOptions.headers!['Content-Type'] = 'application/x-www-form-urlencoded';
		httpOptions.body = encodeForm(request.body);
	}

	const throttle = options.throttle ?? new Throttle();
	let waited = 0;
	let failures = 0;
	let rateLimited = 0;
	let droppedBefore = false;
	for (let attempt = 1; ; attempt++) {
		// Counted from the second attempt on: the wait of a request's first turn is pacing, not retrying.
		const turn = await throttle.waitTurn();
		const startedAt = Date.now();
		if (attempt > 1) waited += turn;
		let failure!: Failure;
		let response: RawResponse | undefined;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				{ ...httpOptions, headers: { ...httpOptions.headers } },
				{ credentialsDecrypted: { ...credentialsDecrypted, data: { ...data } } },
			)) as RawResponse;
		} catch (error) {
			const code = networkErrorCode(error);
			const kind = !code ? 'other' : UNREACHABLE_CODES.includes(code) ? 'unreachable' : 'dropped';
			failure = { kind, code, message: (error as Error).message };
			droppedBefore ||= kind === 'dropped';
		}
		if (response) {
			if (response.statusCode >= 200 && response.statusCode < 300) {
				throttle.onSuccess();
				const answer = parseSuccess(this, response, where, itemIndex);
				if (options.expect === 'list' && !Array.isArray(answer.data)) {
					throw new NodeApiError(this.getNode(), { message: 'not a list' } as JsonObject, {
						message: 'The Messaging service answered a list request without a "data" array',
						description: `${where} returned: ${JSON.stringify(answer).slice(0, 200)}`,
						itemIndex,
					});
				}
				return answer;
			}
			if (response.statusCode === 404 && request.method === 'DELETE' && droppedBefore) {
				return {}; // an earlier attempt, cut off before its answer, did delete it
			}
			failure = { kind: 'status', status: response.statusCode, response };
		}

		const isRateLimit = failure.status === 429;
		if (isRateLimit) rateLimited += 1;
		else failures += 1;
		const attempts = failures + rateLimited;
		// A connection dropped on the first try is most often a stale keep-alive socket: retry at once.
		const delay =
			retryAfterMs(failure.response?.headers) ??
			(failure.kind === 'dropped' && failures === 1 ? 0 : backoffMs(isRateLimit ? rateLimited : failures, DEFAULT_RETRY));
		const exhausted = isRateLimit ? rateLimited >= DEFAULT_RETRY.maxRateLimited : failures >= DEFAULT_RETRY.maxAttempts;
		const retryable = isRetryable(request.method, failure.kind, failure.status);
		if (!retryable || exhausted || waited + delay > DEFAULT_RETRY.maxTotalWaitMs) {
			throw requestError(this, failure, { where, baseUrl, itemIndex, attempts, retryable });
		}
		waited += delay;
		this.logger?.debug(`Messaging: ${where} failed (${failure.status ?? failure.code}), retrying in ${delay} ms`);
		if (isRateLimit) throttle.onRateLimited(delay, startedAt); // the next waitTurn() holds this and every other request
		else await sleep(delay);
	}
}

function parseSuccess(
	context: RequestContext,
	response: RawResponse,
	where: string,
	itemIndex: number | undefined,
): IDataObject {
	const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? '');
	if (text.trim() === '') return {};
	try {
		const parsed: unknown = JSON.parse(text);
		if (parsed !== null && typeof parsed === 'object') return parsed as IDataObject;
	} catch {
		// fall through to the error below
	}
	throw new NodeApiError(
		context.getNode(),
		{ message: 'Response is not JSON' },
		{
			message: 'The Messaging service answered with something that is not JSON',
			description: `${where} returned status ${response.statusCode}: ${serviceErrorText(text) ?? ''}`.trim(),
			httpCode: String(response.statusCode),
			itemIndex,
		},
	);
}

function networkErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	for (let e = error as IDataObject | undefined; e && !seen.has(e); e = e.cause as IDataObject) {
		seen.add(e);
		if (typeof e.code === 'string' && /^E[A-Z_]+$/.test(e.code)) return e.code;
		const text = typeof e.message === 'string' ? e.message : '';
		const match = /\b(E[A-Z]{3,}[A-Z_]*)\b/.exec(text);
		if (match) return match[1];
		if (/socket hang up/i.test(text)) return 'ECONNRESET';
	}
	return undefined;
}

function requestError(
	context: RequestContext,
	failure: Failure,
	details: { where: string; baseUrl: string; itemIndex?: number; attempts: number; retryable: boolean },
): NodeApiError {
	const { where, baseUrl, itemIndex, attempts, retryable } = details;
	const tries = attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
	const node = context.getNode();
	if (failure.kind === 'other') {
		return new NodeApiError(node, { message: failure.message ?? 'request failed' } as JsonObject, {
			message: `The request to the Messaging service could not be made: ${failure.message ?? 'unknown reason'}`,
			description: where,
			itemIndex,
		});
	}
	if (failure.kind === 'unreachable') {
		return new NodeApiError(node, { message: failure.code ?? 'unreachable' } as JsonObject, {
			message: `Could not reach the Messaging service at ${baseUrl}${tries}`,
			description: `${where}: ${failure.code}. Check the Base URL of the Messaging API credential.`,
			itemIndex,
		});
	}
	if (failure.kind === 'dropped') {
		const description = retryable
			? `${where}: ${failure.code ?? 'connection lost'}${tries}.`
			: `${where}: ${failure.code ?? 'connection lost'} after the request was sent. The service may or may not have processed it, so it was not repeated (a message is never sent twice by a retry). Check before sending again.`;
		return new NodeApiError(node, { message: failure.code ?? 'connection lost' } as JsonObject, {
			message: 'The connection to the Messaging service was lost',
			description,
			itemIndex,
		});
	}
	const status = failure.status!;
	const serviceText = serviceErrorText(failure.response?.body);
	const describe = (text: string) => `${text}${serviceText ? `: ${serviceText}` : ''}`;
	let message: string;
	if (status === 401) message = 'Authentication failed: check the access token of the Messaging API credential';
	else if (status === 403) message = describe('The access token is not allowed to do this');
	else if (status === 404) message = describe('Not found');
	else if (status === 429) message = `The Messaging service is rate limiting requests${tries}`;
	else if (status >= 500) message = describe(`The Messaging service failed (${status})`) + tries;
	else message = describe(`The Messaging service rejected the request (${status})`);
	return new NodeApiError(node, { message: serviceText ?? `HTTP ${status}`, status } as JsonObject, {
		message,
		description: `${where} returned ${status}${serviceText ? `: ${serviceText}` : ''}`,
		httpCode: String(status),
		itemIndex,
	});
}
