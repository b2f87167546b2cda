/**
 * One file's body read within the size limit and its deadline, and the sentences that say why a download
 * failed. Node's HTTP parser holds the bytes on the wire to Content-Length (a shorter body is an error);
 * n8n's client (axios) decodes gzip, deflate and br on its own and drops Content-Encoding but not
 * Content-Length, so the bytes read here may be more or fewer than announced: the announced length is only
 * a hint for the buffer, and the limit counts the decoded bytes.
 */
import { describeSize } from './encoding';
import type { Readable, ReadableClass } from './streams';

/** A Content-Length is a stranger's claim: past this, the buffer grows with the bytes that arrive. */
const MAX_PREALLOCATED = 64 * 1024 * 1024;

/** Raised for a file that cannot be downloaded; `retryable` when a later try may succeed. */
export class DownloadError extends Error {
	constructor(
		message: string,
		readonly retryable: boolean,
	) {
		super(message);
	}
}

export interface StreamLike {
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	destroy(error?: Error): unknown;
}

/** Why an attempt was ended from here: its deadline, or the run stopping. */
export type EndReason = (progress: string) => DownloadError;

export function overLimit(limit: number): DownloadError {
	return new DownloadError(
		`it is over the limit of ${describeSize(limit)} (option Max Attachment Size)`,
		false,
	);
}

/** "40 of 120 bytes had arrived", for a body ended before its end. */
export function progressText(size: number, declared: number | undefined): string {
	return declared !== undefined && size <= declared
		? `${size} of ${declared} bytes had arrived`
		: `${size} bytes had arrived`;
}

/**
 * The body as one buffer: never past the limit, destroyed when `signal` aborts (`ended` says why), and
 * each chunk copied once into a buffer of the announced length while it fits.
 */
export async function readBody(
	stream: StreamLike,
	limit: number,
	declared: number | undefined,
	signal: AbortSignal,
	ended: EndReason,
): Promise<Buffer> {
	const fits = declared !== undefined && declared <= Math.min(limit, MAX_PREALLOCATED);
	let whole = fits ? Buffer.allocUnsafe(declared) : undefined;
	const chunks: Buffer[] = [];
	let size = 0;
	let onAbort = () => {};
	try {
		return await new Promise<Buffer>((resolve, reject) => {
			const fail = (error: DownloadError) => {
				stream.destroy();
				reject(error);
			};
			onAbort = () => fail(ended(progressText(size, declared)));
			if (signal.aborted) return onAbort();
			signal.addEventListener('abort', onAbort, { once: true });
			stream.on('data', (chunk) => {
				const bytes = chunk as Buffer;
				size += bytes.length;
				if (size > limit) return fail(overLimit(limit));
				if (whole && size > whole.length) {
					// A decoded body longer than the compressed length announced.
					chunks.push(whole.subarray(0, size - bytes.length));
					whole = undefined;
				}
				if (whole) bytes.copy(whole, size - bytes.length);
				else chunks.push(bytes);
			});
			stream.on('error', (error) => {
				if (signal.aborted) return onAbort();
				reject(bodyError(error, size, declared));
			});
			stream.on('end', () => {
				if (!whole) resolve(Buffer.concat(chunks));
				else resolve(size === whole.length ? whole : whole.subarray(0, size));
			});
		});
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

/**
 * The body as a stream for n8n's store, within the same limit and deadline as readBody, the bytes counted
 * as they arrive (as readBody does) and the source paused while the store catches up. Past the limit or
 * the deadline the source is destroyed (its connection closed) and the stream fails; `failure()` says why.
 */
export function countedBody(
	source: StreamLike & { pause(): unknown; resume(): unknown },
	limit: number,
	declared: number | undefined,
	signal: AbortSignal,
	ended: EndReason,
	readable: ReadableClass,
): { body: Readable; failure: () => DownloadError | undefined; detach: () => void } {
	let size = 0;
	let failure: DownloadError | undefined;
	const body = new readable({ read: () => void source.resume() });
	// Failures are kept in `failure`: the store may not be reading yet (opening its file) when one comes.
	body.on('error', () => {});
	const stop = (error: DownloadError) => {
		failure ??= error;
		source.destroy();
		body.destroy(failure);
	};
	const onAbort = () => stop(ended(progressText(size, declared)));
	source.on('data', (chunk) => {
		const bytes = chunk as Buffer;
		size += bytes.length;
		if (size > limit) return stop(overLimit(limit));
		if (!body.push(bytes)) source.pause();
	});
	source.on('end', () => body.push(null));
	source.on('error', (error) => {
		if (signal.aborted) return onAbort();
		stop(bodyError(error, size, declared));
	});
	const detach = () => signal.removeEventListener('abort', onAbort);
	if (signal.aborted) onAbort();
	else signal.addEventListener('abort', onAbort, { once: true });
	return { body, failure: () => failure, detach };
}

/** A body that broke off: the connection (retried) or a compressed body that does not decode (not). */
function bodyError(error: unknown, size: number, declared: number | undefined): DownloadError {
	const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
	if (typeof code === 'string' && code.startsWith('Z_')) {
		const why = typeof message === 'string' ? ` (${message.slice(0, 80)})` : '';
		return new DownloadError(`its compressed body could not be decoded${why}`, false);
	}
	const at = declared !== undefined && size <= declared ? `${size} of ${declared}` : `${size}`;
	return new DownloadError(`the connection was cut after ${at} bytes`, true);
}

/** What a network error before any answer means, in words: n8n replaces a message naming its code. */
const NETWORK_PROBLEMS: Record<string, string> = {
	ECONNREFUSED: 'refused the connection',
	ECONNRESET: 'closed the connection without answering',
	EPIPE: 'closed the connection without answering',
	ETIMEDOUT: 'did not answer in time',
	ECONNABORTED: 'did not answer in time',
	ENOTFOUND: 'is on a host that was not found',
	EAI_AGAIN: 'is on a host that could not be looked up',
	EHOSTUNREACH: 'could not be reached',
	ENETUNREACH: 'could not be reached',
};

/** A network error's meaning; never its message, which may hold a signed URL's query. */
export function networkProblem(error: unknown): string {
	const { code } = (error ?? {}) as { code?: unknown };
	return (typeof code === 'string' && NETWORK_PROBLEMS[code]) || 'could not be reached';
}
