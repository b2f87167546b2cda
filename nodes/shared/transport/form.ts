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

export function encodeForm(fields: { [key: string]: FormValue }): string {
	const pairs: string[] = [];
	for (const [name, value] of Object.entries(fields)) {
		appendField(pairs, encodeFormComponent(name), value);
	}
	return pairs.join('&');
}

function appendField(pairs: string[], key: string, value: unknown): void {
	if (value === undefined) return;
	if (value === null) {
		pairs.push(`${key}=`);
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
