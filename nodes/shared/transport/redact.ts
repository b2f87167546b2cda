/** Pure: the token and the Base URL's user info never reach an error, an output item or a log line. */

const MASK = '[redacted]';

/** The strings to hide, from the credential's fields: the token, and any user info of the Base URL. */
export function secretsOf(credentials: { accessToken?: unknown; baseUrl?: unknown }): string[] {
	const secrets: string[] = [];
	const token = String(credentials.accessToken ?? '').trim();
	if (token) secrets.push(token);
	const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(
		String(credentials.baseUrl ?? '').trim(),
	);
	if (match) {
		secrets.push(match[1]);
		const [user, password] = match[1].split(':');
		for (const part of [password, user]) {
			if (!part) continue;
			secrets.push(part);
			try {
				secrets.push(decodeURIComponent(part));
			} catch {
				// not percent-encoded
			}
		}
	}
	// Also the form a service may echo back from a URL or a form body: percent-encoded.
	for (const secret of [...secrets]) secrets.push(encodeURIComponent(secret));
	// Longest first, so a secret that contains another is hidden whole.
	return [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
}

/** A secret's start this long or longer, at a cut (`…`), is masked too. */
const MIN_CUT_PREFIX = 3;

/** Every secret and bearer credential masked, and a secret's start that a cut (`…`) went through. */
export function redact(text: string, secrets: string[]): string {
	let result = text;
	for (const secret of secrets) result = result.split(secret).join(MASK);
	for (const secret of secrets) {
		for (let length = secret.length - 1; length >= MIN_CUT_PREFIX; length--) {
			const cut = `${secret.slice(0, length)}…`;
			if (result.includes(cut)) result = result.split(cut).join(`${MASK}…`);
		}
	}
	return result
		.replace(/(bearer\s+)[^\s"',;]+/gi, `$1${MASK}`)
		.replace(/(\/\/)[^/\s?#@]+@/g, `$1${MASK}@`);
}
