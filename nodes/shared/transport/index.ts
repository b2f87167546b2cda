/** Every request of the package: build → acquire → attempt → release → decide. docs/pacing.md#where-it-lives */
import type { ICredentialsDecrypted, IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE, credentialData } from './credentials';
import { apiError, requestError, runRefusedError } from './errors';
import { attempt, buildHttpOptions } from './attempt';
import { checkAnswer, statusFailure, type AttemptResult, type RawResponse } from './outcome';
import { secretsOf } from './redact';
import { decideRetry, DEFAULT_RETRY, type Attempts, type RetryPolicy } from './retry';
import { Pacer, RunStopped } from './pacing/pacer';
import { serviceNow } from '../headers/retryAfter';
import type { ApiRequest, Lane, RequestContext, RequestOptions } from './types';
import { baseUrlProblem, buildUrl, describeLocation, normalizeBaseUrl, requestPath } from './url';

export {
	CREDENTIAL_TYPE,
	getMessagingCredentials,
	useCredentialData,
	type MessagingCredentials,
} from './credentials';
export { MessagingApiError, serviceErrorText } from './errors';
export { DEFAULT_RETRY } from './retry';
export { DeadlineReached, Pacer } from './pacing/pacer';
export type {
	ApiRequest,
	BodyStream,
	Lane,
	RawBody,
	RequestContext,
	RequestOptions,
} from './types';
export { formPieces, StreamedFormValue } from './form';
export { buildUrl, encodePathSegment, normalizeBaseUrl } from './url';

/** One attempt's default timeout; the node's Timeout option changes it. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The policy of a request that names none; the tests swap in a fast one. */
export const transportDefaults: { retry: RetryPolicy } = { retry: DEFAULT_RETRY };

export async function messagingApiRequest(
	this: RequestContext,
	request: ApiRequest,
	options: RequestOptions = {},
): Promise<IDataObject> {
	const { deadline, throughRefusal } = options;
	const policy = options.retry ?? transportDefaults.retry;
	const built = await build(this, request, options);
	const pacer = options.pacer ?? new Pacer();
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const attempts: Attempts = { failures: 0, rateLimited: 0, waitedMs: 0 };
	let droppedBefore = false;
	let firstSentAt: number | undefined;
	for (;;) {
		const turn = await pacer
			.acquire({ signal, deadline, throughRefusal })
			.catch((error: unknown) => {
				if (error instanceof RunStopped)
					throw runRefusedError(built.errorContext, policy, error.status);
				throw error;
			});
		firstSentAt ??= turn.startedAt;
		// A first turn's wait is pacing; from the second attempt on it is retrying.
		if (attempts.failures + attempts.rateLimited > 0) attempts.waitedMs += turn.waitedMs;
		let result: AttemptResult | undefined;
		let response: RawResponse | undefined;
		try {
			signal?.throwIfAborted();
			result = await attempt(this, built.httpOptions, built.credentials, deadline, request.rawBody);
			if ('response' in result) response = result.response;
		} finally {
			turn.release(response);
		}
		if (response) {
			const { sentStatus, statusCode, headers, body } = response;
			options.onAnswer?.({ status: sentStatus ?? statusCode, headers, body });
		}

		if (response && response.statusCode >= 200 && response.statusCode < 300) {
			options.onServiceTime?.(serviceNow(response.headers, Date.now()));
			return checkAnswer(response, options.expect, built.errorContext);
		}
		// An earlier attempt, cut off before its answer, did delete it.
		if (response?.statusCode === 404 && request.method === 'DELETE' && droppedBefore) return {};
		const failure = 'failure' in result ? result.failure : statusFailure(result.response);
		droppedBefore ||= failure.kind === 'dropped' || failure.kind === 'timeout';
		const rateLimited = failure.status === 429;
		const decision = decideRetry(request.method, failure, attempts, policy, Math.random, deadline);
		if (rateLimited) attempts.rateLimited += 1;
		else attempts.failures += 1;
		if (!decision.retry) {
			if (decision.reason === 'exhausted') pacer.gaveUp(firstSentAt, failure.status);
			const error = requestError(failure, response?.body, {
				...built.errorContext,
				attempts: attempts.failures + attempts.rateLimited,
				retryable: decision.reason !== 'not-retryable',
				location: response ? describeLocation(response.headers.location, built.url) : undefined,
				sentStatus: response?.sentStatus,
			});
			error.deadlineReached = decision.reason === 'deadline';
			throw error;
		}
		this.logger?.debug(
			`Messaging: ${built.errorContext.where} failed (${failure.status ?? failure.code ?? failure.kind}), retrying in ${decision.delayMs} ms`,
		);
		attempts.waitedMs += decision.delayMs;
		await waitToRetry(decision.delayMs, rateLimited ? options.lane : undefined, signal);
	}
}

/** A bad Base URL or path fails here, before anything is sent. */
async function build(context: RequestContext, request: ApiRequest, options: RequestOptions) {
	const { itemIndex } = options;
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const data = await credentialData.call(context);
	const secrets = secretsOf(data);
	const node = context.getNode();
	const invalid = (cause: string, message: string, description?: string) =>
		apiError({ node, itemIndex, secrets }, { message: cause }, { message, description });
	const baseUrl = normalizeBaseUrl(String(data.baseUrl ?? ''));
	const problem = baseUrlProblem(baseUrl);
	if (problem) {
		throw invalid(
			'invalid Base URL',
			`The Base URL of the Messaging API credential ${problem}`,
			'Open the credential and correct its Base URL.',
		);
	}
	let url: string;
	try {
		url = buildUrl(baseUrl, request);
	} catch (error) {
		throw invalid('invalid path', (error as Error).message);
	}
	const where = `${request.method} ${requestPath(request.path)}`;
	const credentials: ICredentialsDecrypted = {
		id: node.credentials?.[CREDENTIAL_TYPE]?.id ?? CREDENTIAL_TYPE,
		name: node.credentials?.[CREDENTIAL_TYPE]?.name ?? 'Messaging API',
		type: CREDENTIAL_TYPE,
		data,
	};
	return {
		url,
		credentials,
		httpOptions: buildHttpOptions(request, url, timeoutMs),
		errorContext: { node, where, method: request.method, baseUrl, itemIndex, timeoutMs, secrets },
	};
}

/** A 429 wait up to this long lends the item's place (a longer one: closed to every item). docs/pacing.md#the-pace */
export const MAX_LENT_WAIT_MS = 2_000;

/** Waiting for a place back is not counted in the retry budget, no more than for a first place. */
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
