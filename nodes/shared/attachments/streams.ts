/**
 * Request bodies read as they are sent. n8n's rules for community nodes allow no import of 'stream', so
 * the Readable class is taken from a stream n8n handed over (a stored file's, a download's answer).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

/** A Node.js readable stream, as n8n's helpers return them. */
export type Readable = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

export interface ReadableClass {
	new (options: { read(): void }): Readable;
	from(source: AsyncIterable<Buffer>, options?: { objectMode?: boolean }): Readable;
}

let found: ReadableClass | undefined;

/** The Readable class in a stream's prototype chain (there is one Readable class: it is kept once found). */
export function readableClassOf(stream: unknown): ReadableClass | undefined {
	let proto = stream !== null && typeof stream === 'object' ? Object.getPrototypeOf(stream) : null;
	for (; proto && !found; proto = Object.getPrototypeOf(proto)) {
		const type = (proto as { constructor?: { name?: string; from?: unknown } }).constructor;
		if (type?.name === 'Readable' && typeof type.from === 'function') found = type as ReadableClass;
	}
	return found;
}

/** The Readable class, once a stream has shown it. */
export function seenReadableClass(): ReadableClass | undefined {
	return found;
}

/** Bytes, or text to be written in an encoding (straight into a whole-body buffer, with no copy of its own). */
export type Chunk = Buffer | { text: string; encoding: 'latin1' | 'base64' };

/** A piece of a body: text (UTF-8), or chunks made when the body gets there, afresh for each attempt. */
export type BodyPiece = string | (() => AsyncIterable<Chunk>);

export function chunkLength(chunk: Chunk): number {
	return Buffer.isBuffer(chunk) ? chunk.length : Buffer.byteLength(chunk.text, chunk.encoding);
}

/** The pieces' chunks; `length` is what was announced, and a body that comes to another length is an error. */
async function* wireChunks(pieces: BodyPiece[], length: number): AsyncGenerator<Chunk> {
	let sent = 0;
	for (const piece of pieces) {
		const chunks = typeof piece === 'string' ? [Buffer.from(piece, 'utf8')] : piece();
		for await (const chunk of chunks) {
			sent += chunkLength(chunk);
			if (sent > length) break;
			yield chunk;
		}
		if (sent > length) break;
	}
	if (sent > length) throw new Error(`The upload is longer than the ${length} bytes announced`);
	if (sent < length) throw shortBody(sent, length);
}

const shortBody = (sent: number, length: number) =>
	new Error(`The upload came to ${sent} bytes, not the ${length} announced`);

async function* wireBytes(pieces: BodyPiece[], length: number): AsyncGenerator<Buffer> {
	for await (const chunk of wireChunks(pieces, length))
		yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.text, chunk.encoding);
}

/**
 * The body of one attempt: a stream read as it is sent when there is a Readable class at hand (a file is
 * in n8n's store), else one buffer of the announced length (the files are in the item's memory already).
 */
export async function openBody(
	pieces: BodyPiece[],
	length: number,
	readable?: ReadableClass,
): Promise<Buffer | Readable> {
	if (readable) return readable.from(wireBytes(pieces, length), { objectMode: false });
	const body = Buffer.allocUnsafe(length);
	let offset = 0;
	for await (const chunk of wireChunks(pieces, length)) {
		offset += Buffer.isBuffer(chunk)
			? chunk.copy(body, offset)
			: body.write(chunk.text, offset, chunk.encoding);
	}
	if (offset !== length) throw shortBody(offset, length);
	return body;
}
