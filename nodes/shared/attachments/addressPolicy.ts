/**
 * Pure: which attachment hosts are on the internal network. Attachment URLs are written by other chat
 * participants, so a URL on a loopback, private, link-local or other non-public address (or a name that
 * only the local network resolves) is refused unless the user allows it. Hosts are read as the WHATWG URL
 * parser writes them (what the HTTP client connects to): `http://2130706433/`, `http://0x7f.1/` and
 * `http://127.1/` are all 127.0.0.1, `[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`.
 */

/** IPv4 ranges that are not public unicast (RFC 6890 and its updates). */
const IPV4_RANGES: Array<[string, number, string]> = [
	['0.0.0.0', 8, 'the unspecified address ("this network")'],
	['10.0.0.0', 8, 'a private address'],
	['100.64.0.0', 10, 'a shared address (carrier-grade NAT)'],
	['127.0.0.0', 8, 'a loopback address'],
	['169.254.0.0', 16, 'a link-local address (where cloud metadata services answer)'],
	['172.16.0.0', 12, 'a private address'],
	['192.0.0.0', 24, 'a special-purpose address'],
	['192.0.2.0', 24, 'a documentation address'],
	['192.88.99.0', 24, 'a special-purpose address (6to4 relay)'],
	['192.168.0.0', 16, 'a private address'],
	['198.18.0.0', 15, 'a special-purpose address (benchmarking)'],
	['198.51.100.0', 24, 'a documentation address'],
	['203.0.113.0', 24, 'a documentation address'],
	['224.0.0.0', 4, 'a multicast address'],
	['240.0.0.0', 4, 'a reserved address'],
];

/** Top-level and special-use names that only a local network resolves (RFC 6761, 6762, 8375, ICANN's .internal). */
const LOCAL_NAME_SUFFIXES = [
	'local',
	'internal',
	'home.arpa',
	'localdomain',
	'lan',
	'intranet',
	'corp',
	'home',
];

/** The IPv4 address as a 32-bit number, or undefined when the text is not a dotted quad. */
function ipv4Number(text: string): number | undefined {
	const parts = text.split('.');
	if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255))
		return undefined;
	return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** The ranges as numbers: first address, size, what it is. */
const IPV4_TABLE = IPV4_RANGES.map(([network, bits, kind]) => ({
	start: ipv4Number(network) ?? 0,
	size: 2 ** (32 - bits),
	kind,
}));

/** Why an IPv4 address (as a number) is not public, or undefined for a public one. */
function ipv4Problem(address: number): string | undefined {
	return IPV4_TABLE.find(({ start, size }) => address >= start && address < start + size)?.kind;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail allowed), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
	let body = text.toLowerCase();
	const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(body);
	if (tail) {
		const v4 = ipv4Number(tail[2]);
		if (v4 === undefined) return undefined;
		body = `${tail[1]}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
	}
	const halves = body.split('::');
	if (halves.length > 2) return undefined;
	const read = (part: string) => (part === '' ? [] : part.split(':'));
	const head = read(halves[0]);
	const rest = halves.length === 2 ? read(halves[1]) : [];
	const missing = 8 - head.length - rest.length;
	if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
	const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
	if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
	return groups.map((g) => parseInt(g, 16));
}

/** Why an IPv6 address is not public, or undefined for a public one (2000::/3 outside the special ranges). */
function ipv6Problem(g: number[]): string | undefined {
	const v4At = (i: number) => g[i] * 65536 + g[i + 1];
	const embedded = (i: number, what: string) => {
		const kind = ipv4Problem(v4At(i));
		return kind && `${kind}, ${what}`;
	};
	const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
	if (zeroUpTo(8)) return 'the unspecified address';
	if (zeroUpTo(7) && g[7] === 1) return 'a loopback address';
	if (zeroUpTo(5) && g[5] === 0xffff) return embedded(6, 'IPv4-mapped');
	if (zeroUpTo(6)) return 'a special-purpose address (IPv4-compatible)';
	if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
		return embedded(6, 'through NAT64');
	if (g[0] === 0x2002) return embedded(1, 'through 6to4');
	if (g[0] === 0x2001 && g[1] === 0xdb8) return 'a documentation address';
	if (g[0] === 0x2001 && g[1] < 0x200) return 'a special-purpose address';
	if (g[0] === 0x3fff && g[1] < 0x1000) return 'a documentation address';
	if ((g[0] & 0xfe00) === 0xfc00) return 'a unique-local address';
	if ((g[0] & 0xffc0) === 0xfe80) return 'a link-local address';
	if ((g[0] & 0xffc0) === 0xfec0) return 'a site-local address';
	if ((g[0] & 0xff00) === 0xff00) return 'a multicast address';
	if ((g[0] & 0xe000) !== 0x2000) return 'a reserved address';
	return undefined;
}

/** Why an IP address (as DNS returns it, or a URL's host without brackets) is not public; undefined if it is. */
export function ipProblem(address: string): string | undefined {
	const v4 = ipv4Number(address);
	if (v4 !== undefined) return ipv4Problem(v4);
	const v6 = ipv6Groups(address.replace(/^\[|\]$/g, ''));
	return v6 ? ipv6Problem(v6) : undefined;
}

/** Whether a URL host is an IP literal (then nothing is resolved). */
export function isIpLiteral(hostname: string): boolean {
	return ipv4Number(hostname) !== undefined || /^\[[0-9a-f:.]+\]$/i.test(hostname);
}

/** Why a host name (not an IP) names the local network without any lookup, or undefined. */
export function localNameProblem(hostname: string): string | undefined {
	const name = hostname.toLowerCase().replace(/\.$/, '');
	if (name === 'localhost' || name.endsWith('.localhost')) return 'a name of this machine';
	if (!name.includes('.')) return 'a single-label name (resolved in the local network)';
	const suffix = LOCAL_NAME_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
	return suffix && `a name of the local network (.${suffix})`;
}

/** Why a URL's host is internal by its text alone (IP literal or local name), or undefined. */
export function hostProblem(hostname: string): string | undefined {
	return isIpLiteral(hostname) ? ipProblem(hostname) : localNameProblem(hostname);
}

/** The refusal of n8n's SSRF protection in an error or its causes: what it names, or undefined. */
export function n8nSsrfRefusal(error: unknown): { ip?: string; hostname?: string } | undefined {
	const seen = new Set<unknown>();
	for (let level = error; level && typeof level === 'object' && !seen.has(level); ) {
		seen.add(level);
		const { name, message, ip, hostname, cause } = level as Record<string, unknown>;
		if (
			name === 'SsrfBlockedIpError' ||
			name === 'SsrfBlockedHostnameError' ||
			(typeof message === 'string' && message.startsWith('The request was blocked because'))
		) {
			return {
				...(typeof ip === 'string' ? { ip } : {}),
				...(typeof hostname === 'string' ? { hostname } : {}),
			};
		}
		level = cause;
	}
	return undefined;
}

/** n8n's refusal as a download error's text ("refused by n8n's SSRF protection: host (ip)"), or undefined. */
export function describeN8nSsrfRefusal(error: unknown, url: string): string | undefined {
	const refusal = n8nSsrfRefusal(error);
	if (!refusal) return undefined;
	const host = refusal.hostname ?? new URL(url).hostname;
	const ip = refusal.ip && refusal.ip !== host.replace(/^\[|\]$/g, '') ? ` (${refusal.ip})` : '';
	return `refused by n8n's SSRF protection: ${host}${ip}`;
}
