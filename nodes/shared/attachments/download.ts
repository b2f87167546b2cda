/**
 * A message's attachments as n8n binary data: each one fetched from its URL (the access token only on
 * the Base URL's own origin, redirects followed by hand so the token never follows one elsewhere) or
 * decoded from inline base64, within the size limit and the timeout, then stored through n8n's helpers.
 */
import type {
	IBinaryData,
	IBinaryKeyData,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE, credentialData } from '../transport/credentials';
import { normalizeBaseUrl } from '../transport/url';
import {
	attachmentMimeType,
	attachmentName,
	attachmentSource,
	binaryFieldName,
	describeSize,
	describeUrl,
	downloadTarget,
	isBase64,
} from './encoding';

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
}

export const BINARY_PREFIX = 'attachment_';

/** Redirects followed for one file (each hop decides anew whether the token goes). */
const MAX_REDIRECTS = 5;
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

/** Every attachment of one message as binary fields, in order; throws naming the message and the attachment. */
export async function downloadMessageAttachments(
	context: DownloadContext,
	message: IDataObject,
	settings: DownloadSettings,
	itemIndex?: number,
): Promise<IBinaryKeyData> {
	const { binary, failures } = await downloadEach(context, message, settings, true);
	if (failures.length > 0) {
		throw new NodeOperationError(
			context.getNode(),
			`${failures[0]}${itemIndex === undefined ? '' : ` [item ${itemIndex}]`}`,
			{
				itemIndex,
				description:
					'Download Attachments fetches each attachment from its URL field (option Attachment URL Field) or its inline base64 data.',
			},
		);
	}
	return binary;
}

/**
 * Every attachment that can be downloaded, and a sentence for each that cannot (for the trigger, which
 * delivers the message whatever happens to its files).
 */
export async function downloadMessageAttachmentsRecordingFailures(
	context: DownloadContext,
	message: IDataObject,
	settings: DownloadSettings,
): Promise<{ binary: IBinaryKeyData; failures: string[] }> {
	return await downloadEach(context, message, settings, false);
}

async function downloadEach(
	context: DownloadContext,
	message: IDataObject,
	settings: DownloadSettings,
	stopAtFirstFailure: boolean,
): Promise<{ binary: IBinaryKeyData; failures: string[] }> {
	const attachments = Array.isArray(message.attachments) ? message.attachments : [];
	const binary: IBinaryKeyData = {};
	const failures: string[] = [];
	for (const [index, attachment] of attachments.entries()) {
		try {
			binary[binaryFieldName(settings.prefix ?? BINARY_PREFIX, index)] = await downloadOne(
				context,
				attachment,
				settings,
			);
		} catch (error) {
			const name = attachmentName(attachment);
			failures.push(
				`Attachment ${index} of message ${String(message.id ?? '(no id)')}${name ? ` (${name})` : ''} could not be downloaded: ${(error as Error).message}`,
			);
			if (stopAtFirstFailure) break;
		}
	}
	return { binary, failures };
}

async function downloadOne(
	context: DownloadContext,
	attachment: unknown,
	settings: DownloadSettings,
): Promise<IBinaryData> {
	const source = attachmentSource(attachment, settings.urlField);
	const fileName = attachmentName(attachment);
	const mimeType = attachmentMimeType(attachment);
	if ('problem' in source) throw new DownloadError(source.problem, false);
	if ('data' in source) {
		if (!isBase64(source.data)) throw new DownloadError(`its ${source.field} is not base64`, false);
		const bytes = Buffer.from(source.data, 'base64');
		checkSize(bytes.length, settings.limit);
		return await context.helpers.prepareBinaryData(bytes, fileName, mimeType);
	}
	const credentials = await credentialData.call(context);
	const baseUrl = normalizeBaseUrl(String(credentials.baseUrl ?? ''));
	let target = downloadTarget(source.url, baseUrl);
	for (let hop = 0; ; hop++) {
		if ('problem' in target) {
			const what = hop === 0 ? `its ${source.field}` : 'it redirects to an address that';
			throw new DownloadError(`${what} ${target.problem}`, false);
		}
		const answer = await fetchWithRetries(context, target, settings, {
			id: '',
			name: 'Messaging API',
			type: CREDENTIAL_TYPE,
			data: credentials,
		});
		if ('location' in answer) {
			if (hop >= MAX_REDIRECTS)
				throw new DownloadError(`more than ${MAX_REDIRECTS} redirects`, false);
			target = downloadTarget(answer.location, baseUrl, target.url);
			continue;
		}
		const type = mimeType ?? answer.contentType?.split(';')[0].trim();
		return await context.helpers.prepareBinaryData(
			answer.bytes,
			fileName ?? fileNameOf(target.url),
			type || undefined,
		);
	}
}

function checkSize(size: number, limit: number): void {
	if (size > limit) {
		throw new DownloadError(
			`it is ${describeSize(size)}, over the limit of ${describeSize(limit)} (option Max Attachment Size)`,
			false,
		);
	}
}

function fileNameOf(url: string): string | undefined {
	const last = new URL(url).pathname.split('/').pop();
	if (!last) return undefined;
	try {
		return decodeURIComponent(last);
	} catch {
		return last;
	}
}

type Answer = { location: string } | { bytes: Buffer; contentType?: string };

async function fetchWithRetries(
	context: DownloadContext,
	target: { url: string; withToken: boolean },
	settings: DownloadSettings,
	credentials: ICredentialsDecrypted,
): Promise<Answer> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await fetchOnce(context, target, settings, credentials);
		} catch (error) {
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
