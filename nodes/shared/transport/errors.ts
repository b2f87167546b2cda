/** Errors a person can read: what was asked, what the service said, whether it may have been done. */
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { cutText } from '../lines';
import { redact } from './redact';
import { MAX_WAIT_PER_RETRY_MS } from '../headers/retryAfter';
import type { Failure, RetryPolicy } from './retry';

/** An error message is a sentence, not a page. */
const MAX_ERROR_TEXT = 200;

const short = (text: string) =>
	text.length > MAX_ERROR_TEXT ? `${cutText(text, MAX_ERROR_TEXT)}…` : text;

const nonEmpty = (value: unknown): string | undefined =>
	typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** A list of errors (JSON:API, FastAPI's `msg` and `loc`, GraphQL) or Rails' field → messages, joined. */
function errorListText(errors: unknown): string | undefined {
	const one = (entry: unknown): string | undefined => {
		if (typeof entry === 'string') return nonEmpty(entry);
		if (!entry || typeof entry !== 'object') return undefined;
		const e = entry as IDataObject;
		const text = nonEmpty(e.message) ?? nonEmpty(e.msg) ?? nonEmpty(e.detail) ?? nonEmpty(e.title);
		const where = Array.isArray(e.loc) ? e.loc.filter((l) => l !== 'body').join('.') : '';
		return text && where ? `${where}: ${text}` : text;
	};
	let texts: Array<string | undefined> = [];
	if (Array.isArray(errors)) texts = errors.map(one);
	else if (errors && typeof errors === 'object')
		texts = Object.entries(errors as IDataObject).flatMap(([field, messages]) =>
			(Array.isArray(messages) ? messages : [messages])
				.map(one)
				.map(
					(text) => text && (field === 'message' || field === 'base' ? text : `${field}: ${text}`),
				),
		);
	const found = texts.filter((t): t is string => t !== undefined);
	return found.length > 0 ? short(found.join('; ')) : undefined;
}

/** The service's own error text from a body of unknown shape (JSON's most telling field, HTML, text). */
export function serviceErrorText(body: unknown): string | undefined {
	if (body === undefined || body === null) return undefined;
	if (typeof body === 'object') {
		if (Array.isArray(body)) return errorListText(body);
		const record = body as IDataObject;
		const error = record.error;
		const nested = error && typeof error === 'object' ? (error as IDataObject) : undefined;
		// An `error` that is only a code or a reason phrase tells less than a message.
		const found =
			nonEmpty(nested?.message) ??
			nonEmpty(record.message) ??
			nonEmpty(record.error_description) ??
			nonEmpty(record.detail) ??
			errorListText(record.detail) ??
			errorListText(record.errors) ??
			errorListText(nested?.errors) ??
			nonEmpty(error) ??
			nonEmpty(record.title);
		return found === undefined ? undefined : short(found);
	}
	const text = String(body).trim();
	if (text === '') return undefined;
	try {
		return serviceErrorText(JSON.parse(text));
	} catch {
		// Not JSON: an HTML error page or plain text, shown without its markup.
	}
	const plain = text
		.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
	return plain === '' ? undefined : short(plain);
}

/** A short, safe rendering of an unexpected answer, for error texts. */
export function describeBody(body: unknown): string {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	if (text === undefined || text.trim() === '') return 'an empty body';
	return short(text);
}

export interface ErrorContext {
	node: INode;
	/** `GET /v1/messages/…`, as it may be shown. */
	where: string;
	method: string;
	baseUrl: string;
	itemIndex?: number;
	/** Attempts made, the failing one included. */
	attempts: number;
	retryable: boolean;
	timeoutMs: number;
	secrets: string[];
	/** A redirect's target, as it may be shown. */
	location?: string;
	/** The status the service sent, when the answer counts as another (a 403 as a 429). */
	sentStatus?: number;
}

/** A budget spent on 429s, a quota spent beyond any wait, the run stopped (a storm). docs/pacing.md#bounds */
export type RefusalKind = 'rate-limit' | 'quota' | 'run';

/** n8n's NodeApiError with the facts of the failure as fields (retry.ts's Failure says what each means). */
export class MessagingApiError extends NodeApiError {
	status?: number;
	retryAfterMs?: number;
	askedWaitMs?: number;
	quotaResetAt?: number;
	/** The next try would have come after the request's deadline. */
	deadlineReached = false;
	refusal?: RefusalKind;
	/** The service's own reason (serviceErrorText), before our sentence around it. */
	serviceText?: string;

	constructor(
		node: INode,
		cause: JsonObject,
		options: ConstructorParameters<typeof NodeApiError>[2],
		facts: Facts,
	) {
		super(node, cause, options);
		Object.assign(this, facts);
	}
}

type Facts = Partial<Omit<MessagingApiError, keyof NodeApiError>>;

const MAYBE_PROCESSED =
	'The service may or may not have processed it, so it was not repeated (a message is never sent twice by a retry). Check before sending again.';

/** Every text redacted, whatever the service echoed. */
export function apiError(
	context: Pick<ErrorContext, 'node' | 'itemIndex' | 'secrets'>,
	cause: { message: string; status?: number },
	texts: { message: string; description?: string; httpCode?: string },
	facts: Facts = {},
): MessagingApiError {
	const clean = (text: string) => redact(text, context.secrets);
	const serviceText = facts.serviceText === undefined ? undefined : clean(facts.serviceText);
	return new MessagingApiError(
		context.node,
		{ ...cause, message: clean(cause.message) } as JsonObject,
		{
			message: clean(texts.message),
			description: texts.description === undefined ? undefined : clean(texts.description),
			httpCode: texts.httpCode,
			itemIndex: context.itemIndex,
		},
		{ ...facts, serviceText },
	);
}

export function requestError(
	failure: Failure,
	body: unknown,
	details: ErrorContext,
): MessagingApiError {
	const { where, baseUrl, attempts, retryable, method } = details;
	const tries = attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
	const cause = { message: failure.code ?? failure.message ?? 'request failed' };
	switch (failure.kind) {
		case 'other':
			return apiError(details, cause, {
				message: `The request to the Messaging service could not be made: ${failure.message ?? 'unknown reason'}`,
				description: where,
			});
		case 'unreachable':
			return apiError(details, cause, {
				message: `Could not reach the Messaging service at ${baseUrl}${tries}`,
				description: `${where}: ${failure.code}. Check the Base URL of the Messaging API credential.`,
			});
		case 'timeout':
			return apiError(details, cause, {
				message: `The Messaging service did not answer within ${details.timeoutMs / 1000} s${tries}`,
				description: retryable
					? `${where}: no complete answer in time. Raise "Timeout" in the node's options if the service is known to be slow.`
					: `${where}: no complete answer in time after the request was sent. ${MAYBE_PROCESSED}`,
			});
		case 'dropped':
			return apiError(details, cause, {
				message: 'The connection to the Messaging service was lost',
				description: retryable
					? `${where}: ${failure.code ?? 'connection lost'}${tries}.`
					: `${where}: ${failure.code ?? 'connection lost'} after the request was sent. ${MAYBE_PROCESSED}`,
			});
		case 'status':
			break;
	}
	const status = failure.status!;
	const serviceText = serviceErrorText(body);
	const reason = serviceText ? `: ${serviceText}` : '';
	// A body in no shape we read still says something: its start goes in the description.
	const bodyText =
		serviceText ?? (body === undefined || body === '' ? undefined : describeBody(body));
	let description = `${where} returned ${details.sentStatus ?? status}${bodyText ? `: ${bodyText}` : ''}`;
	const { retryAfterMs, askedWaitMs, quotaResetAt } = failure; // only a 429's (statusFailure)
	const refusal: RefusalKind | undefined =
		status !== 429 ? undefined : quotaResetAt !== undefined ? 'quota' : 'rate-limit';
	let message = `The Messaging service rejected the request (${status})${reason}`;
	if (status >= 300 && status < 400) {
		message = `The Messaging service redirected the request (${status}) to ${details.location ?? 'another address'}`;
		description = `${where} returned ${status}. Redirects are not followed, so the access token never leaves the Base URL's origin and a write is never turned into a read. Check the Base URL of the credential (http or https, host, path).`;
	} else if (status === 401)
		message = 'Authentication failed: check the access token of the Messaging API credential';
	else if (status === 403) message = `The access token is not allowed to do this${reason}`;
	else if (status === 404) message = `Not found${reason}`;
	else if (quotaResetAt !== undefined) {
		const minutes = Math.ceil((quotaResetAt - Date.now()) / 60_000);
		message = `The Messaging service's rate limit quota is spent until ${new Date(quotaResetAt).toISOString()} (in ${minutes} min)`;
		description = `${description}. A request waits at most ${MAX_WAIT_PER_RETRY_MS / 1000} s for a rate limit, so it was not repeated; run it again after the quota resets.`;
	} else if (status === 429) message = `The Messaging service is rate limiting requests${tries}`;
	else if (status >= 500) {
		message = `The Messaging service failed (${status})${reason}${tries}`;
		if (method === 'POST') description = `${description}. ${MAYBE_PROCESSED}`;
	}
	return apiError(
		details,
		{ message: serviceText ?? `HTTP ${status}`, status },
		{ message, description, httpCode: String(status) },
		{ status, retryAfterMs, askedWaitMs, quotaResetAt, refusal, serviceText },
	);
}

/** A request not tried again because the run stopped (the storm rule); `status`: the storm's. */
export function runRefusedError(
	details: Pick<ErrorContext, 'node' | 'where' | 'itemIndex' | 'secrets'>,
	policy: RetryPolicy,
	status: number | undefined = 429,
): MessagingApiError {
	const rateLimited = status === 429;
	const budget = rateLimited
		? `${policy.maxRateLimited} rate-limited answers or ${policy.maxTotalWaitMs / 1000} s of waiting`
		: `${policy.maxAttempts} attempts`;
	return apiError(
		details,
		{ message: status === undefined ? 'no answer' : `HTTP ${status}`, status },
		{
			message: rateLimited
				? 'The Messaging service is rate limiting requests (the run stopped retrying)'
				: `The Messaging service failed (${status ?? 'no answer'}) (the run stopped retrying)`,
			description: `${details.where} was not sent again: the service ${rateLimited ? 'refused' : 'failed'} every request of this run for a whole retry budget (${budget}), so the run's other requests were not retried one by one. Run it again once the service ${rateLimited ? 'accepts requests' : 'answers'}.`,
			httpCode: status === undefined ? undefined : String(status),
		},
		{ status, refusal: 'run' },
	);
}
