'use strict';
const http = require('node:http');

/**
 * The second origin: another HTTP server on another loopback port, a stand-in for "somewhere else" a
 * redirect may point. It records every request in full (headers and body) and answers `answer`.
 */
function createOtherOrigin(config, files) {
	const requests = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const url = new URL(req.url, 'http://other');
			requests.push({
				method: req.method,
				path: url.pathname,
				query: url.search,
				headers: { ...req.headers },
				body: Buffer.concat(chunks).toString('utf8'),
			});
			if (req.method === 'GET' && files.serve(url.pathname, res)) return;
			const { status, body, headers } = other.answer;
			const text = typeof body === 'string' ? body : JSON.stringify(body);
			res.writeHead(status, {
				'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
				'content-length': Buffer.byteLength(text),
				...headers,
			});
			res.end(text);
		});
	});
	const other = {
		url: undefined,
		requests,
		/** What it answers to everything: by default a 200 that looks like an empty list. */
		answer: { status: 200, body: { has_more: false, data: [] }, headers: {} },
		clearRequests() {
			requests.length = 0;
		},
		async start() {
			await new Promise((resolve, reject) => {
				server.once('error', reject);
				server.listen(config.otherPort, config.host, () => resolve(undefined));
			});
			other.port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
			other.url = `http://${config.host}:${other.port}`;
		},
		async stop() {
			if (!server.listening) return;
			server.closeAllConnections?.();
			await new Promise((resolve) => server.close(() => resolve()));
		},
	};
	return other;
}

module.exports = { createOtherOrigin };
