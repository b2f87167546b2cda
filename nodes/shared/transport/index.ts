/**
 * Every request of the package goes through `messagingApiRequest`: build the request, make one
 * attempt, decide (return the answer, retry, or fail with a readable error). The concerns live in
 * their own modules: url (addresses and encoding), form (bodies), pacer and retryAfter (the shared
 * pace learned from the service's answers), outcome (what an attempt came to), retry (the pure retry
 * decision), errors and redact (readable errors without secrets), credentials; attempt makes one
 * attempt (a place in flight, one bounded HTTP request).
 */
import type { ICredentialsDecrypted, IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE, credentialData } from './credentials';
import { apiError, requestError, runRefusedError } from './errors';
import { admission, attempt, buildHttpOptions } from './attempt';
import { checkAnswer, failureOf, type Outcome } from './outcome';
import { secretsOf } from './redact';
import {
	decideRetry,
	DEFAULT_RETRY,
	type Attempts,
	type RetryDecision,
	type RetryPolicy,
} from './retry';
import { Pacer } from './pacer';
import { withRawBody } from './rawBody';
import { serviceNow } from './retryAfter';
import type { ApiRequest, Lane, RequestContext, RequestOptions, Turn } from './types';
import { baseUrlProblem, buildUrl, describeLocation, normalizeBaseUrl, requestPath } from './url';

export { CREDENTIAL_TYPE, getMessagingCredentials, type MessagingCredentials } from './credentials';
export { serviceErrorText } from './errors';
export { DEFAULT_RETRY, type RetryPolicy } from './retry';
export { Pacer } from './pacer';
export type { ApiRequest, Lane, RequestContext, RequestOptions } from './types';
export type { RawBody } from './rawBody';
export { buildUrl, encodePathSegment, normalizeBaseUrl } from './url';

/** How long one attempt may take by default; the node's Timeout option changes it. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The policy used when a request names none. Replaceable as a whole by whoever embeds the package
 * (the tests swap in a fast one instead of waiting through real backoff).
 */
export const transportDefaults: { retry: RetryPolicy } = { retry: DEFAULT_RETRY };

export async function messagingApiRequest(
	this: RequestContext,
	request: ApiRequest,
	options: RequestOptions = {},
): Promise<IDataObject> {
	const { itemIndex } = options;
	const policy = options.retry ?? transportDefaults.retry;
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const data = await credentialData.call(this);
	const secrets = secretsOf(data);
	const node = this.getNode();
	const baseUrl = normalizeBaseUrl(String(data.baseUrl ?? ''));
	const problem = baseUrlProblem(baseUrl);
	if (problem) {
		throw apiError(
			{ node, itemIndex, secrets },
			{ message: 'invalid Base URL' },
			{
				message: `The Base URL of the Messaging API credential ${problem}`,
				description: 'Open the credential and correct its Base URL.',
			},
		);
	}
	let url: string;
	let where: string;
	try {
		url = buildUrl(baseUrl, request);
		where = `${request.method} ${requestPath(request.path)}`;
	} catch (error) {
		throw apiError(
			{ node, itemIndex, secrets },
			{ message: 'invalid path' },
			{ message: (error as Error).message },
		);
	}
	const httpOptions = buildHttpOptions(request, url, timeoutMs);
	const credentials: ICredentialsDecrypted = {
		id: node.credentials?.[CREDENTIAL_TYPE]?.id ?? CREDENTIAL_TYPE,
		name: node.credentials?.[CREDENTIAL_TYPE]?.name ?? 'Messaging API',
		type: CREDENTIAL_TYPE,
		data,
	};

	const pacer = options.pacer ?? new Pacer();
	// Waits between attempts end at once when the execution is cancelled.
	const cancelSignal =
		'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const attempts: Attempts = { failures: 0, rateLimited: 0, waitedMs: 0 };
	const errorContext = {
		node,
		where,
		method: request.method,
		baseUrl,
		itemIndex,
		timeoutMs,
		secrets,
	};
	let droppedBefore = false;
	let firstSentAt: number | undefined;
	for (;;) {
		// Checked before each turn: a turn whose wait is 0 and an admission that hands the request back
		// for a new turn (a spent quota) never sleep, so a cancel would otherwise not be seen.
		cancelSignal?.throwIfAborted();
		if (pacer.refusingRun) throw runRefusedError(errorContext, policy);
		// The wait of a request's first turn is pacing; from the second attempt on it is retrying.
		let turn: Turn | undefined;
		let turnTaken = false;
		try {
			for (turn = pacer.takeTurn(); turn.wait > 0; turn = pacer.resume(turn)) {
				await sleep(turn.wait, cancelSignal);
				if (attempts.failures + attempts.rateLimited > 0) attempts.waitedMs += turn.wait;
			}
			if (pacer.refusingRun) throw runRefusedError(errorContext, policy);
			turnTaken = true;
		} finally {
			if (!turnTaken) pacer.abandonTurn(turn); // cancelled or refused while waiting: given up, not taken
		}
		// Then a place among the requests in flight (bounded only once the service showed a cap on them);
		// none, but a new turn, when it waited for an answer to renew the announced quota.
		const admitted = await admission(pacer, turn, cancelSignal);
		if (admitted === undefined) continue;
		const { inFlight, startedAt } = admitted;
		firstSentAt ??= startedAt;
		let outcome: Outcome;
		try {
			cancelSignal?.throwIfAborted();
			outcome = await attempt(
				this,
				request.rawBody ? withRawBody(httpOptions, request.rawBody) : httpOptions,
				credentials,
				data,
				attemptTimeoutMs(timeoutMs, options),
			);
			if ('response' in outcome) {
				const { statusCode: status, headers, body } = outcome.response;
				pacer.onResponse({ status, headers, body, startedAt, inFlight });
			}
		} finally {
			pacer.settle();
		}

		if ('response' in outcome) {
			const { response } = outcome;
			if (response.statusCode >= 200 && response.statusCode < 300) {
				options.onServiceTime?.(serviceNow(response.headers, Date.now()));
				return checkAnswer(response, options.expect, { node, itemIndex, secrets, where });
			}
			if (response.statusCode === 404 && request.method === 'DELETE' && droppedBefore) {
				return {}; // an earlier attempt, cut off before its answer, did delete it
			}
		}
		const failure = failureOf(outcome);
		droppedBefore ||= failure.kind === 'dropped' || failure.kind === 'timeout';
		const decision = withinDeadline(
			decideRetry(request.method, failure, attempts, policy),
			options,
		);
		if (failure.status === 429) attempts.rateLimited += 1;
		else attempts.failures += 1;
		if (!decision.retry) {
			if (failure.status === 429 && decision.reason === 'exhausted')
				pacer.gaveUpRateLimited(firstSentAt);
			const response = 'response' in outcome ? outcome.response : undefined;
			const error = requestError(failure, response?.body, {
				...errorContext,
				attempts: attempts.failures + attempts.rateLimited,
				retryable: decision.reason !== 'not-retryable',
				location: response ? describeLocation(response.headers.location, url) : undefined,
				sentStatus: response?.sentStatus,
			});
			// For a caller with a deadline: its next try would have come after it.
			if (decision.reason === 'deadline') error.context.deadlineReached = true;
			throw error;
		}
		this.logger?.debug(
			`Messaging: ${where} failed (${failure.status ?? failure.code ?? failure.kind}), retrying in ${decision.delayMs} ms`,
		);
		// The failed request waits alone: a 429's Retry-After, else the backoff. The run's other requests
		// only pause as the pacer says (briefly, unless the service shows a wall).
		attempts.waitedMs += decision.delayMs;
		await waitToRetry(
			decision.delayMs,
			failure.status === 429 ? options.lane : undefined,
			cancelSignal,
		);
	}
}

/** One attempt's timeout: the request's, cut to its deadline if it has one. */
function attemptTimeoutMs(timeoutMs: number, { deadline }: RequestOptions): number {
	return deadline === undefined
		? timeoutMs
		: Math.max(1, Math.min(timeoutMs, deadline - Date.now()));
}

/** A retry that would start past the request's deadline is not made: the request gives up. */
function withinDeadline(decision: RetryDecision, { deadline }: RequestOptions): RetryDecision {
	if (!decision.retry || deadline === undefined || Date.now() + decision.delayMs < deadline)
		return decision;
	return { retry: false, reason: 'deadline' };
}

/**
 * A 429 wait of up to this long lends the item's place to the next item: Retry-After in whole seconds
 * often outlasts the limit (a window reopens sooner), and the run's pace finds that out with other items.
 * A longer wait means the service is closed to every item: lending would only spend more items' retries.
 */
export const MAX_LENT_WAIT_MS = 2_000;

/**
 * Waits `ms` before a retry, lending the item's place when that is short. Waiting for a place back is
 * not counted in the retry budget (no more than waiting for a first place is).
 */
async function waitToRetry(
	ms: number,
	lane: Lane | undefined,
	signal?: AbortSignal,
): Promise<void> {
	if (ms <= 0) return;
	const lent = ms <= MAX_LENT_WAIT_MS && lane?.lend() === true;
	try {
		await sleep(ms, signal);
	} finally {
		if (lent) await lane.reclaim();
	}
}
