/**
 * The body of an upload with files, read as it is sent: each file from n8n's store through its helpers when
 * the binary has an id (filesystem or S3 mode), else from the base64 the item holds (memory mode). Neither
 * the form's base64 nor the multipart body is built whole, and a retry reads the files again.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { formPieces, StreamedFormValue, type RawBody } from '../transport';
import { encodeFormComponent } from '../transport/form';
import { base64OfBytes, decodablePieces, formLength, pieces } from './base64';
import {
	closingLine,
	describeSize,
	multipartLength,
	partHeader,
	type OutgoingFile,
	type Part,
} from './encoding';
import {
	chunkLength,
	openBody,
	readableClassOf,
	seenReadableClass,
	type BodyPiece,
	type Chunk,
	type ReadableClass,
} from './streams';
import { inputError } from '../inputError';

export interface FileToSend {
	file: OutgoingFile;
	binary: IBinaryData;
}

/** A stored file's bytes through n8n's helper. */
async function* storedBytes(context: IExecuteFunctions, id: string): AsyncGenerator<Buffer> {
	const stream = await context.helpers.getBinaryStream(id);
	readableClassOf(stream);
	for await (const chunk of stream) yield chunk as Buffer;
}

/** The file's bytes (its base64 text in memory mode), checked against the size n8n recorded for it. */
async function* fileBytes(
	context: IExecuteFunctions,
	itemIndex: number,
	{ file, binary }: FileToSend,
): AsyncGenerator<Chunk> {
	let read = 0;
	const source: AsyncIterable<Chunk> | Iterable<Chunk> = binary.id
		? storedBytes(context, binary.id)
		: textChunks(decodablePieces(binary.data ?? ''), 'base64');
	for await (const chunk of source) {
		read += chunkLength(chunk);
		if (read > file.size) break; // larger than n8n recorded: refused below
		yield chunk;
	}
	if (read !== file.size) {
		throw inputError(
			context,
			itemIndex,
			'Attachments From Binary Data',
			`"${file.field}" is not the size n8n recorded for it (${describeSize(read)} read, ${describeSize(file.size)} recorded)`,
		);
	}
}

function* textChunks(texts: Iterable<string>, encoding: 'latin1' | 'base64'): Generator<Chunk> {
	for (const text of texts) yield { text, encoding };
}

/** The file's base64 as the form sends it, its length counted first (by a read of the file if it is stored). */
export async function formValue(
	context: IExecuteFunctions,
	binary: IBinaryData,
): Promise<StreamedFormValue> {
	const base64 = () =>
		binary.id ? base64OfBytes(storedBytes(context, binary.id)) : pieces(binary.data ?? '');
	let length = 0;
	for await (const piece of base64()) length += formLength(piece);
	return new StreamedFormValue(length, async function* () {
		for await (const piece of base64())
			yield { text: encodeFormComponent(piece), encoding: 'latin1' as const };
	});
}

/** The form with its files' base64 (formValue) in the attachments, as a body read as it is sent. */
export async function formBody(
	context: IExecuteFunctions,
	fields: IDataObject,
	files: FileToSend[],
): Promise<RawBody> {
	const body: BodyPiece[] = [];
	let length = 0;
	for (const piece of formPieces(fields)) {
		body.push(typeof piece === 'string' ? piece : piece.chunks);
		length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
	}
	return await rawBody(context, 'application/x-www-form-urlencoded', body, length, files);
}

/** multipart/form-data: the text parts, and each file's part streamed from where it is. */
export async function multipartBody(
	context: IExecuteFunctions,
	itemIndex: number,
	parts: Part[],
	files: FileToSend[],
): Promise<RawBody> {
	const boundary = `----n8nMessaging${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
	const body: BodyPiece[] = [];
	let text = '';
	for (const part of parts) {
		text += partHeader(boundary, part);
		if ('file' in part) {
			body.push(text, () => fileBytes(context, itemIndex, files[part.index]));
			text = '';
		} else text += part.value;
		text += '\r\n';
	}
	body.push(`${text}${closingLine(boundary)}`);
	const contentType = `multipart/form-data; boundary=${boundary}`;
	return await rawBody(context, contentType, body, multipartLength(boundary, parts), files);
}

async function rawBody(
	context: IExecuteFunctions,
	contentType: string,
	body: BodyPiece[],
	length: number,
	files: FileToSend[],
): Promise<RawBody> {
	const stored = files.find((f) => f.binary.id)?.binary.id;
	const readable = stored ? await readableClass(context, stored) : undefined;
	return { contentType, length, open: async () => await openBody(body, length, readable) };
}

/** n8n's Readable class: from a stream already read, else from a stored file's, opened and closed. */
async function readableClass(
	context: IExecuteFunctions,
	id: string,
): Promise<ReadableClass | undefined> {
	const seen = seenReadableClass();
	if (seen) return seen;
	const probe = await context.helpers.getBinaryStream(id);
	probe.destroy();
	return readableClassOf(probe);
}
