/**
 * Pure: a file's base64 in pieces that join to the base64 of the whole, so neither the file nor its base64
 * is held at once; and the form encoding of those pieces.
 */
import { encodeFormComponent } from '../transport/form';

/** Characters of an item's base64 text taken at a time: small enough for V8's young generation. */
const TEXT_PIECE = 64 * 1024;

/** Base64 of a byte stream, piece by piece (each piece encodes a multiple of 3 bytes, the last the rest). */
export async function* base64OfBytes(bytes: AsyncIterable<Buffer>): AsyncGenerator<string> {
	let carry = Buffer.alloc(0);
	for await (const chunk of bytes) {
		let at = 0;
		if (carry.length > 0) {
			at = Math.min(3 - carry.length, chunk.length);
			carry = Buffer.concat([carry, chunk.subarray(0, at)]);
			if (carry.length < 3) continue;
			yield carry.toString('base64');
		}
		const whole = at + Math.floor((chunk.length - at) / 3) * 3;
		if (whole > at) yield chunk.toString('base64', at, whole);
		carry = Buffer.from(chunk.subarray(whole)); // a copy: the chunk itself is let go
	}
	if (carry.length > 0) yield carry.toString('base64');
}

/** An item's base64 text (n8n's memory mode) in pieces, whitespace left out as the old whole-text path did. */
export function* pieces(text: string): Generator<string> {
	for (let at = 0; at < text.length; at += TEXT_PIECE) {
		const piece = text.slice(at, at + TEXT_PIECE);
		yield /\s/.test(piece) ? piece.replace(/\s+/g, '') : piece;
	}
}

/** An item's base64 text in pieces that decode alone (4 characters to 3 bytes), whitespace left out. */
export function* decodablePieces(text: string): Generator<string> {
	let carry = '';
	for (const piece of pieces(text)) {
		const joined = carry + piece;
		const whole = joined.length - (joined.length % 4);
		if (whole > 0) yield joined.slice(0, whole);
		carry = joined.slice(whole);
	}
	if (carry !== '') yield carry;
}

/** The length of encodeFormComponent(base64), without building it (base64's own characters counted fast). */
export function formLength(base64: string): number {
	if (!/^[A-Za-z0-9+/=_-]*$/.test(base64)) return Buffer.byteLength(encodeFormComponent(base64));
	let escaped = 0;
	for (let i = 0; i < base64.length; i++) {
		const code = base64.charCodeAt(i);
		if (code === 43 || code === 47 || code === 61) escaped += 1; // + / =
	}
	return base64.length + 2 * escaped;
}
