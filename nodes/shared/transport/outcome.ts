/** Pure: what one attempt came to, a failure classified for the retry decision, a 2xx checked. */
import type { IDataObject } from 'n8n-workflow';

import { apiError, describeBody, type ErrorContext } from './errors';
import { refusalStatus, spentQuotaResetAt } from '../headers/rateLimitHeaders';
import type { Failure } from './retry';
import { retryHintMs } from '../headers/retryAfter';

/** `list` a `{ data: [...] }` page, `record` an object with an id, `none` anything (not read). */
export type ExpectedAnswer = 'list' | 'record' | 'none';

export interface RawResponse {
	body: unknown;
	headers: IDataObject;
	/** The status the answer counts as (refusalStatus). */
	statusCode: number;
	/** The status the service sent, when it counts as another. */
	sentStatus?: number;
}

/** An answer (any status), or the failure of a request that got none. */
export type AttemptResult = { response: RawResponse } | { failure: Failure };

export function countedAs(response: RawResponse): RawResponse {
	const status = refusalStatus(response.statusCode, response.headers, Date.now());
	return status === response.statusCode
		? response
		: { ...response, statusCode: status, sentStatus: response.statusCode };
}

const UNREACHABLE_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];
const TIMEOUT_CODES = ['ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT', 'ERR_REQUEST_TIMEOUT'];

/** Only a 429's body is read for a wait: a 5xx body's numbers were not written for this. */
export function statusFailure(response: RawResponse): Failure {
	const hintBody = response.statusCode === 429 ? response.body : undefined;
	return {
		kind: 'status',
		status: response.statusCode,
		retryAfterMs: retryHintMs(response.headers, hintBody, Date.now()),
		askedWaitMs: retryHintMs(response.headers, hintBody, Date.now(), Infinity),
		quotaResetAt:
			response.statusCode === 429 ? spentQuotaResetAt(response.headers, Date.now()) : undefined,
	};
}

/** A request that got no answer, by the network error's code. */
export function networkFailure(error: unknown): Failure {
	const code = networkErrorCode(error);
	const message = (error as Error | undefined)?.message;
	if (!code) return { kind: 'other', message };
	if (TIMEOUT_CODES.includes(code)) return { kind: 'timeout', code, message };
	if (UNREACHABLE_CODES.includes(code)) return { kind: 'unreachable', code, message };
	return { kind: 'dropped', code, message };
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
		if (/timeout of \d+ms exceeded/i.test(text)) return 'ETIMEDOUT';
	}
	return undefined;
}

/** A 2xx's body as the call expects it: JSON, an object, a list or a record. */
export function checkAnswer(
	response: RawResponse,
	expect: ExpectedAnswer | undefined,
	context: Pick<ErrorContext, 'node' | 'itemIndex' | 'secrets' | 'where'>,
): IDataObject {
	if (expect === 'none') return {};
	const text =
		typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? '');
	const unexpected = (cause: string, message: string, returned: string) =>
		apiError(
			context,
			{ message: cause },
			{
				message: `The Messaging service answered ${message}`,
				description: `${context.where} returned ${returned}: ${describeBody(text)}`,
				httpCode: String(response.statusCode),
			},
		);
	let parsed: unknown;
	try {
		parsed = text.trim() === '' ? undefined : JSON.parse(text);
		if (parsed !== undefined && (parsed === null || typeof parsed !== 'object')) throw new Error();
	} catch {
		throw unexpected(
			'Response is not JSON',
			'with something that is not JSON',
			`status ${response.statusCode}`,
		);
	}
	const answer = (Array.isArray(parsed) ? undefined : parsed) as IDataObject | undefined;
	let problem: string | undefined;
	if (expect === 'list' && !Array.isArray(answer?.data)) problem = 'a list without a "data" array';
	else if (expect === 'record' && (answer?.id ?? '') === '')
		problem = 'something that is not a record (no "id")';
	else if (Array.isArray(parsed)) problem = 'a bare array';
	if (problem) throw unexpected('unexpected answer', problem, String(response.statusCode));
	return answer ?? {};
}
