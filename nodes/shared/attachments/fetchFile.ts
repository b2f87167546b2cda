/** One file fetched over HTTP: retried, redirects returned to the caller, the body read within the size limit and the timeout. */
import type {
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
import { describeSize, describeUrl } from './encoding';

export type DownloadContext = IExecuteFunctions | IPollFunctions | ITriggerFunctions;

export interface DownloadSettings {
	/** The attachment field holding the URL; '' for the first of DEFAULT_URL_FIELDS. */
	urlField: string;
	/** Bytes; Infinity for none. */
	limit: number;
	/** How long the answer may pause (no byte arriving) before the download fails. */
	timeoutMs: number;
	/** Binary field names: prefix + index. */
	prefix?: string;
	/** Internal addresses off the Base URL's origin are fetched (addressCheck.ts). */
	allowPrivateAddresses?: boolean;
}

/** Attempts for one file when the connection drops, times out, or the answer is a 5xx or 429. */
const MAX_DOWNLOAD_ATTEMPTS = 3;

/** Raised for a file that cannot be downloaded; `retryable` when a later try may succeed. */
export class DownloadError extends Error {
	constructor(
		message: string,
		readonly retryable: boolean,
	) {
		super(message);
	}
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

export type Answer = { location: string } | { bytes: Buffer; contentType?: string };

export async function fetchWithRetries(
	context: DownloadContext,
	target: { url: string; withToken: boolean },
	settings: DownloadSettings,
	credentials: ICredentialsDecrypted,
): Promise<Answer> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await fetchOnce(context, target, settings, credentials);
		} catch (caught) {
			// n8n's SSRF protection refusing the address is final, and said as such.
			const refusal = describeN8nSsrfRefusal(caught, target.url);
			const error = refusal ? new DownloadError(refusal, false) : caught;
			const retryable = !(error instanceof DownloadError) || error.retryable;
			if (!retryable || attempt >= MAX_DOWNLOAD_ATTEMPTS) {
				throw error instanceof DownloadError
					? error
					: new DownloadError(`${describeUrl(target.url)} failed (${networkCode(error)})`, true);
			}
			await sleep(250 * 2 ** (attempt - 1));
		}
	}
}

interface StreamLike {
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	destroy(error?: Error): unknown;
}

/** One GET: a redirect's target, or the whole body within the limit; the token only when `withToken`. */
async function fetchOnce(
	context: DownloadContext,
	target: { url: string; withToken: boolean },
	settings: DownloadSettings,
	credentials: ICredentialsDecrypted,
): Promise<Answer> {
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
		timeout: settings.timeoutMs,
	};
	const response = (
		target.withToken
			? await context.helpers.httpRequestWithAuthentication.call(
					context,
					CREDENTIAL_TYPE,
					options,
					{
						credentialsDecrypted: credentials,
					},
				)
			: await context.helpers.httpRequest(options)
	) as { body: StreamLike; headers: IDataObject; statusCode: number };
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
	const declared = Number(headers['content-length']);
	if (Number.isFinite(declared)) checkSize(declared, settings.limit);
	return {
		bytes: await readBody(body, settings, Number.isFinite(declared) ? declared : undefined),
		contentType: typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined,
	};
}

/**
 * The body as one buffer: of the announced length when there is one (each chunk copied into it once),
 * never past the limit, failing when no byte arrives for the timeout.
 */
async function readBody(
	stream: StreamLike,
	settings: DownloadSettings,
	declared: number | undefined,
): Promise<Buffer> {
	const chunks: Buffer[] = [];
	const whole = declared === undefined ? undefined : Buffer.allocUnsafe(declared);
	let size = 0;
	let lastByteAt = Date.now();
	const finished = new AbortController();
	try {
		return await new Promise<Buffer>((resolve, reject) => {
			const fail = (error: DownloadError) => {
				stream.destroy();
				reject(error);
			};
			void (async () => {
				while (!finished.signal.aborted) {
					await sleep(settings.timeoutMs, finished.signal).catch(() => undefined);
					if (!finished.signal.aborted && Date.now() - lastByteAt >= settings.timeoutMs)
						fail(new DownloadError(`no data for ${settings.timeoutMs / 1000} s`, true));
				}
			})();
			stream.on('data', (chunk) => {
				const bytes = chunk as Buffer;
				lastByteAt = Date.now();
				size += bytes.length;
				if (size > settings.limit) {
					fail(
						new DownloadError(
							`it is over the limit of ${describeSize(settings.limit)} (option Max Attachment Size)`,
							false,
						),
					);
				} else if (whole) {
					if (size > whole.length) fail(new DownloadError('it is longer than announced', true));
					else bytes.copy(whole, size - bytes.length);
				} else chunks.push(bytes);
			});
			stream.on('error', (error) =>
				reject(new DownloadError(`the connection failed (${networkCode(error)})`, true)),
			);
			stream.on('end', () => {
				if (whole && size !== whole.length)
					reject(new DownloadError('the answer ended before its announced length', true));
				else resolve(whole ?? Buffer.concat(chunks));
			});
		});
	} finally {
		finished.abort();
	}
}

/** A network error's code; never its message, which may hold a signed URL's query. */
function networkCode(error: unknown): string {
	const { code } = (error ?? {}) as { code?: unknown };
	return typeof code === 'string' && /^E[A-Z_]+$/.test(code) ? code : 'network error';
}
