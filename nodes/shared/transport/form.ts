/** Form encoding exactly as the Messaging API documents it: bracketed keys, `key=` to clear a field, names encoded too. */

/** Any JSON-like value: text, number, boolean, null, arrays and plain objects of those. */
export type FormValue = unknown;

/** encodeURIComponent plus the characters it leaves alone but form parsers may treat specially. */
export function encodeFormComponent(text: string): string {
	return encodeURIComponent(text).replace(
		/[!'()*]/g,
		(c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
	);
}

/** A value written in as the form is sent (a file's base64): its encoded bytes, afresh on each call. */
export class StreamedFormValue {
	constructor(
		/** Bytes, once encoded. */
		readonly length: number,
		/** Bytes, or ASCII text already encoded. */
		readonly chunks: () => AsyncIterable<Buffer | { text: string; encoding: 'latin1' }>,
	) {}
}

type Pair = string | [key: string, value: StreamedFormValue];

export function encodeForm(fields: { [key: string]: FormValue }): string {
	const pairs: string[] = [];
	for (const [name, value] of Object.entries(fields)) {
		appendField(pairs, encodeFormComponent(name), value);
	}
	return pairs.join('&');
}

/** encodeForm's bytes in pieces: encoded text, and the streamed values where they go. */
export function formPieces(fields: {
	[key: string]: FormValue;
}): Array<string | StreamedFormValue> {
	const pairs: Pair[] = [];
	for (const [name, value] of Object.entries(fields)) {
		appendField(pairs, encodeFormComponent(name), value);
	}
	const pieces: Array<string | StreamedFormValue> = [];
	let text = '';
	pairs.forEach((pair, index) => {
		if (index > 0) text += '&';
		if (typeof pair === 'string') text += pair;
		else {
			pieces.push(`${text}${pair[0]}=`, pair[1]);
			text = '';
		}
	});
	if (text !== '') pieces.push(text);
	return pieces;
}

function appendField(pairs: Pair[], key: string, value: unknown): void {
	if (value === undefined) return;
	if (value === null) {
		pairs.push(`${key}=`);
	} else if (value instanceof StreamedFormValue) {
		pairs.push([key, value]);
	} else if (Array.isArray(value)) {
		if (value.length === 0) pairs.push(`${key}=`);
		value.forEach((element, index) => {
			const isStructured = element !== null && typeof element === 'object';
			appendField(pairs, isStructured ? `${key}[${index}]` : `${key}[]`, element);
		});
	} else if (typeof value === 'object') {
		const entries = Object.entries(value as object);
		if (entries.length === 0) pairs.push(`${key}=`);
		for (const [child, childValue] of entries as Array<[string, unknown]>) {
			appendField(pairs, `${key}[${encodeFormComponent(child)}]`, childValue);
		}
	} else {
		pairs.push(`${key}=${encodeFormComponent(String(value))}`);
	}
}
