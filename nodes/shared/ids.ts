/**
 * An id as the nodes compare and send it: text. The spec types ids as text, but services send numbers
 * too (`1`, `42`); compared as sent, `1 !== '1'`, and a bot's own message passed for someone else's.
 * Undefined for anything that is not an id (empty text, null, an object).
 */
export function idText(value: unknown): string | undefined {
	if (typeof value === 'string') return value === '' ? undefined : value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}
