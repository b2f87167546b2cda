'use strict';
/**
 * The address policy of attachment downloads: which URL hosts are internal, read as the HTTP client reads
 * them (through the WHATWG URL parser), and how n8n's own SSRF refusal is recognised in an error.
 */
const path = require('node:path');
const { describeN8nSsrfRefusal, hostProblem, ipProblem, n8nSsrfRefusal } = require(
	path.join(__dirname, '../../dist/nodes/shared/attachments/addressPolicy.js'),
);

const problemOf = (url) => hostProblem(new URL(url).hostname);

describe('refused: internal addresses, in every form the URL parser accepts', () => {
	test.each([
		// IPv4 loopback, written every way the parser turns into 127.0.0.1
		['http://127.0.0.1/', 'a loopback address'],
		['http://127.0.0.2:8080/admin/secret', 'a loopback address'],
		['http://127.255.255.254/', 'a loopback address'],
		['http://2130706433/', 'a loopback address'],
		['http://0x7f.1/', 'a loopback address'],
		['http://0x7f000001/', 'a loopback address'],
		['http://0177.0.0.1/', 'a loopback address'],
		['http://127.1/', 'a loopback address'],
		['http://127.0.0.1./', 'a loopback address'],
		['http://%31%32%37.0.0.1/', 'a loopback address'],
		['http://１２７.0.0.1/', 'a loopback address'],
		// unspecified, private, shared, link-local (cloud metadata), special ranges
		['http://0.0.0.0/', 'the unspecified address'],
		['http://0/', 'the unspecified address'],
		['http://10.0.0.5/', 'a private address'],
		['http://172.16.0.1/', 'a private address'],
		['http://172.31.255.255/', 'a private address'],
		['http://192.168.1.10/', 'a private address'],
		['http://100.64.0.1/', 'a shared address (carrier-grade NAT)'],
		['http://100.100.100.200/latest/meta-data', 'a shared address (carrier-grade NAT)'],
		['http://169.254.169.254/latest/meta-data/', 'a link-local address (where cloud metadata'],
		['http://0xa9fea9fe/', 'a link-local address'],
		['http://192.0.0.192/opc/v2/instance/', 'a special-purpose address'],
		['http://192.0.2.1/', 'a documentation address'],
		['http://198.18.0.1/', 'a special-purpose address (benchmarking)'],
		['http://224.0.0.1/', 'a multicast address'],
		['http://255.255.255.255/', 'a reserved address'],
		// IPv6: loopback, unspecified, mapped and translated IPv4, unique-local, link-local, multicast
		['http://[::1]/', 'a loopback address'],
		['http://[0:0:0:0:0:0:0:1]/', 'a loopback address'],
		['http://[::]/', 'the unspecified address'],
		['http://[::ffff:127.0.0.1]/', 'a loopback address, IPv4-mapped'],
		['http://[::ffff:7f00:2]/', 'a loopback address, IPv4-mapped'],
		['http://[0:0:0:0:0:ffff:169.254.169.254]/', 'a link-local address (where cloud metadata'],
		['http://[::ffff:10.1.2.3]/', 'a private address, IPv4-mapped'],
		['http://[::127.0.0.1]/', 'a special-purpose address (IPv4-compatible)'],
		['http://[64:ff9b::127.0.0.1]/', 'a loopback address, through NAT64'],
		[
			'http://[2002:a9fe:a9fe::]/',
			'a link-local address (where cloud metadata services answer), through 6to4',
		],
		['http://[fc00::1]/', 'a unique-local address'],
		['http://[fd12:3456:789a::1]/', 'a unique-local address'],
		['http://[fe80::1]/', 'a link-local address'],
		['http://[fec0::1]/', 'a site-local address'],
		['http://[ff02::1]/', 'a multicast address'],
		['http://[2001:db8::1]/', 'a documentation address'],
		['http://[2001::1]/', 'a special-purpose address'],
		['http://[100::1]/', 'a reserved address'],
		// names only a local network resolves
		['http://localhost/', 'a name of this machine'],
		['http://LOCALHOST:5678/', 'a name of this machine'],
		['http://localhost./', 'a name of this machine'],
		['http://admin.localhost/', 'a name of this machine'],
		[
			'http://metadata.google.internal/computeMetadata/v1/',
			'a name of the local network (.internal)',
		],
		['http://metadata/computeMetadata/v1/', 'a single-label name'],
		['http://instance-data/latest/', 'a single-label name'],
		['http://printer.local/', 'a name of the local network (.local)'],
		['http://nas.home.arpa/', 'a name of the local network (.home.arpa)'],
		['http://intranet/', 'a single-label name'],
	])('%s: %s', (url, expected) => {
		expect(problemOf(url)).toEqual(expect.stringContaining(expected));
	});
});

describe('allowed: public addresses and names (a name is resolved and checked separately)', () => {
	test.each([
		'http://8.8.8.8/',
		'https://93.184.216.34/file',
		'http://172.32.0.1/', // just past 172.16/12
		'http://100.128.0.1/', // just past 100.64/10
		'http://169.253.255.255/',
		'http://11.0.0.1/',
		'http://[2606:4700::1111]/',
		'http://[::ffff:8.8.8.8]/',
		'http://[64:ff9b::8.8.8.8]/',
		'http://[2002:0808:0808::]/',
		'http://[2001:4860:4860::8888]/',
		'https://files.example.com/a.pdf',
		'https://storage.googleapis.com/bucket/x',
		'https://127.0.0.1.nip.io/', // resolves to loopback: refused only by the lookup
		'https://localhost.example.com/',
	])('%s', (url) => {
		expect(problemOf(url)).toBeUndefined();
	});
});

test('resolved addresses as DNS gives them (no brackets), IPv4-mapped included', () => {
	expect(ipProblem('127.0.0.1')).toBe('a loopback address');
	expect(ipProblem('::1')).toBe('a loopback address');
	expect(ipProblem('::ffff:192.168.0.4')).toBe('a private address, IPv4-mapped');
	expect(ipProblem('fd00::5')).toBe('a unique-local address');
	expect(ipProblem('93.184.216.34')).toBeUndefined();
	expect(ipProblem('2a00:1450:4001:82b::200e')).toBeUndefined();
});

describe("n8n's SSRF refusal, as its request helper raises it", () => {
	const blocked = (ip, hostname) =>
		Object.assign(
			new Error('The request was blocked because it resolves to a restricted IP address'),
			{ name: 'SsrfBlockedIpError', ip, hostname },
		);

	test('before the request (thrown as is), and at connect time (the cause of the client error)', () => {
		expect(n8nSsrfRefusal(blocked('127.0.0.2'))).toEqual({ ip: '127.0.0.2' });
		const atConnect = Object.assign(new Error('connect failed'), {
			isAxiosError: true,
			cause: blocked('10.0.0.5', 'files.corp.example'),
		});
		expect(n8nSsrfRefusal(atConnect)).toEqual({ ip: '10.0.0.5', hostname: 'files.corp.example' });
		const byName = Object.assign(new Error('blocked'), {
			name: 'SsrfBlockedHostnameError',
			hostname: 'evil.example',
		});
		expect(n8nSsrfRefusal(byName)).toEqual({ hostname: 'evil.example' });
		// older n8n: same name, another message
		expect(
			n8nSsrfRefusal(
				Object.assign(new Error('IP address is blocked'), {
					name: 'SsrfBlockedIpError',
					ip: '::1',
				}),
			),
		).toEqual({ ip: '::1' });
	});

	test('other errors are not mistaken for it', () => {
		expect(
			n8nSsrfRefusal(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
		).toBeUndefined();
		const loop = new Error('x');
		loop.cause = loop;
		expect(n8nSsrfRefusal(loop)).toBeUndefined();
		expect(n8nSsrfRefusal(undefined)).toBeUndefined();
	});

	test('described with the URL’s host, and the address when it differs', () => {
		expect(describeN8nSsrfRefusal(blocked('127.0.0.2'), 'http://127.0.0.2:9000/admin/secret')).toBe(
			"refused by n8n's SSRF protection: 127.0.0.2",
		);
		expect(
			describeN8nSsrfRefusal(blocked('10.0.0.5'), 'https://files.corp.example/x?sig=s3cret'),
		).toBe("refused by n8n's SSRF protection: files.corp.example (10.0.0.5)");
		expect(describeN8nSsrfRefusal(blocked('::1'), 'http://[::1]:80/')).toBe(
			"refused by n8n's SSRF protection: [::1]",
		);
	});
});
