/** One file fetched over HTTP: retried, redirects returned to the caller, the body read within the size limit and the deadline. */
import type {
	IBinaryData,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../transport/credentials';
import { describeN8nSsrfRefusal } from './addressPolicy';
import {
	countedBody,
	DownloadError,
	networkProblem,
	readBody,
	type EndReason,
	type StreamLike,
} from './downloadBody';
import { describeSize, describeUrl } from './encoding';
import { readableClassOf, type Readable } from './streams';

export { DownloadError } from './downloadBody';

export type DownloadContext = IExecuteFunctions | IPollFunctions | ITriggerFunctions;

export interface DownloadSettings {
	/** The attachment field holding the URL; '' for the first of DEFAULT_URL_FIELDS. */
	urlField: string;
	/** Bytes; Infinity for none. */
	limit: number;
	/** How long one file may take in all: redirects, retries and every byte of its body. */
	timeoutMs: number;
	/** Epoch ms when the download ends whatever its timeout (the trigger's check; one file's end). */
	deadline?: number;
	/** The timeout as errors name it; by default "the Timeout of N s". */
	timeoutName?: string;
	/** Binary field names: prefix + index. */
	prefix?: string;
	/** Internal addresses off the Base URL's origin are fetched (addressCheck.ts). */
	allowPrivateAddresses?: boolean;
}

/** Attempts for one file when the connection drops, times out, or the answer is a 5xx or 429. */
const MAX_DOWNLOAD_ATTEMPTS = 3;

/** Content-Encoding values that leave the bytes as they are (axios removes the ones it decodes). */
const PLAIN_ENCODINGS = ['', 'identity'];

/** The settings of one file, its deadline set from now: its timeout, within the batch's deadline. */
export function forOneFile(settings: DownloadSettings): DownloadSettings {
	const own = Date.now() + settings.timeoutMs;
	return { ...settings, deadline: Math.min(own, settings.deadline ?? own) };
}

/** Over the Max Attachment Size option: refused, not retried. */
export function checkSize(size: number, limit: number): void {
	if (size > limit) {
		throw new DownloadError(
			`it is ${describeSize(size)}, over the limit of ${describeSize(limit)} (option Max Attachment Size)`,
			false,
		);
	}
}

export type Answer =
	| { location: string }
	| { bytes: Buffer; contentType?: string }
	| { binary: IBinaryData };

/**
 * Where a body goes: straight into n8n's store as it arrives when `streams(contentType)` (the file's type
 * is known), else read whole first (n8n then tells the type from the bytes).
 */
export interface Keep {
	streams(contentType: string | undefined): boolean;
	save(body: Readable, contentType: string | undefined): Promise<IBinaryData>;
}

export async function fetchWithRetries(
	context: DownloadContext,
	target: { url: string; withToken: boolean },
	settings: DownloadSettings,
	credentials: ICredentialsDecrypted,
	keep?: Keep,
): Promise<Answer> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await fetchOnce(context, target, settings, credentials, keep);
		} catch (caught) {
			// n8n's SSRF protection refusing the address is final, and said as such.
			const refusal = describeN8nSsrfRefusal(caught, target.url);
			const error = refusal ? new DownloadError(refusal, false) : caught;
			const retryable = !(error instanceof DownloadError) || error.retryable;
			const backoff = 250 * 2 ** (attempt - 1);
			if (!retryable || attempt >= MAX_DOWNLOAD_ATTEMPTS || !hasTime(settings, backoff)) {
				throw error instanceof DownloadError
					? error
					: new DownloadError(`${describeUrl(target.url)} ${networkProblem(error)}`, true);
			}
			await sleep(backoff);
		}
	}
}

/** Whether a retry after `waitMs` would still start before the file's deadline. */
function hasTime(settings: DownloadSettings, waitMs: number): boolean {
	return settings.deadline === undefined || Date.now() + waitMs < settings.deadline;
}

/** One GET: a redirect's target, or the whole body within the limit; the token only when `withToken`. */
async function fetchOnce(
	context: DownloadContext,
	target: { url: string; withToken: boolean },
	settings: DownloadSettings,
	credentials: ICredentialsDecrypted,
	keep?: Keep,
): Promise<Answer> {
	const deadline = settings.deadline ?? Date.now() + settings.timeoutMs;
	const attempt = startAttempt(context, settings, deadline);
	try {
		if (deadline <= Date.now()) throw attempt.ended('no answer');
		const options: IHttpRequestOptions = {
			method: 'GET',
			url: target.url,
			encoding: 'stream',
			json: false,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// Followed here, one hop at a time, so the token is sent only to the Base URL's origin.
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			timeout: Math.max(1, deadline - Date.now()),
			abortSignal: attempt.signal,
		};
		const response = (await (
			target.withToken
				? attempt.context.helpers.httpRequestWithAuthentication.call(
						attempt.context,
						CREDENTIAL_TYPE,
						options,
						{ credentialsDecrypted: credentials },
					)
				: attempt.context.helpers.httpRequest(options)
		).catch((error: unknown) => {
			if (attempt.signal.aborted || Date.now() >= deadline) throw attempt.ended('no answer');
			throw error;
		})) as { body: StreamLike; headers: IDataObject; statusCode: number };
		const { statusCode: status, headers, body } = response;
		if (status >= 300 && status < 400 && typeof headers.location === 'string') {
			body.destroy();
			return { location: headers.location };
		}
		if (status < 200 || status >= 300) {
			body.destroy();
			throw new DownloadError(
				`${describeUrl(target.url)} answered ${status}`,
				status === 429 || status >= 500,
			);
		}
		const encoding = String(headers['content-encoding'] ?? '')
			.trim()
			.toLowerCase();
		if (!PLAIN_ENCODINGS.includes(encoding)) {
			body.destroy();
			throw new DownloadError(
				`it is sent with Content-Encoding ${encoding.slice(0, 40)}, which n8n cannot decode`,
				false,
			);
		}
		const declared = Number(headers['content-length']);
		if (Number.isFinite(declared)) checkSize(declared, settings.limit);
		const announced = Number.isFinite(declared) ? declared : undefined;
		const contentType =
			typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
		const readable = keep?.streams(contentType) ? readableClassOf(body) : undefined;
		if (keep && readable) {
			const counted = countedBody(
				body as StreamLike & { pause(): unknown; resume(): unknown },
				settings.limit,
				announced,
				attempt.signal,
				attempt.ended,
				readable,
			);
			try {
				return { binary: await keep.save(counted.body, contentType) };
			} catch (error) {
				// n8n's store failing on its own (a full disk) is not a network fault: not retried.
				throw counted.failure() ?? new DownloadError((error as Error).message, false);
			} finally {
				counted.detach();
			}
		}
		return {
			bytes: await readBody(body, settings.limit, announced, attempt.signal, attempt.ended),
			contentType,
		};
	} finally {
		attempt.end();
	}
}

/**
 * One attempt's signal: aborted at the file's deadline or when the run stops, which ends n8n's request
 * and destroys its socket. n8n passes a context's own cancel signal to the request in place of the
 * options' one, so the request runs under a context whose cancel signal is this one.
 */
function startAttempt(context: DownloadContext, settings: DownloadSettings, deadline: number) {
	const timer = new AbortController();
	const stopped =
		'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
	const signal = stopped ? AbortSignal.any([timer.signal, stopped]) : timer.signal;
	const wait = new AbortController();
	const remaining = deadline - Date.now();
	if (remaining <= 0) timer.abort();
	else
		void sleep(remaining, wait.signal).then(
			() => timer.abort(),
			() => {},
		);
	const scoped = Object.create(context) as DownloadContext;
	Object.defineProperty(scoped, 'getExecutionCancelSignal', { value: () => signal });
	const ended: EndReason = (progress) =>
		stopped?.aborted
			? new DownloadError('the run was stopped', false)
			: new DownloadError(`it took longer than ${timeoutName(settings)} (${progress})`, false);
	return {
		signal,
		context: scoped,
		ended,
		end: () => {
			wait.abort();
			timer.abort();
		},
	};
}

function timeoutName(settings: DownloadSettings): string {
	return (
		settings.timeoutName ?? `the Timeout of ${Number((settings.timeoutMs / 1000).toFixed(1))} s`
	);
}
