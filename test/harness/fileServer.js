'use strict';
/**
 * A loopback file server for download tests: each path answers as a test scripts it (a file that drips,
 * a compressed body, a body cut short), and every request is recorded with when its connection closed
 * and how many were open at once. Its timers are the test's (jest's fake clock when the test fakes it).
 */
const http = require('node:http');
const zlib = require('node:zlib');

/**
 * `host`: another loopback address (127.0.0.2) stands for a service on the internal network.
 * @param {{ host?: string }} [options]
 */
async function startFileServer({ host = '127.0.0.1' } = {}) {
	const routes = new Map();
	const sockets = new Set();
	const files = {
		requests: [],
		open: 0,
		maxOpen: 0,
		/** `handler(req, res, record)` answers GET `path`. */
		route(path, handler) {
			routes.set(path, handler);
			return `${files.url}${path}`;
		},
		/** Announces `length` bytes, then sends `step` of them every `everyMs`. */
		drip(path, { length, step = 1, everyMs, type = 'application/octet-stream' }) {
			return files.route(path, (req, res) => {
				res.writeHead(200, { 'Content-Type': type, 'Content-Length': length });
				let sent = 0;
				const next = () => {
					if (res.destroyed || sent >= length) return res.end();
					const n = Math.min(step, length - sent);
					res.write(Buffer.alloc(n, 120));
					sent += n;
					setTimeout(next, everyMs);
				};
				next();
			});
		},
		/** `body` encoded with `encoding` (gzip, deflate, br), its Content-Length the encoded size. */
		encoded(path, body, encoding) {
			const encode = {
				gzip: zlib.gzipSync,
				deflate: zlib.deflateSync,
				br: zlib.brotliCompressSync,
			};
			const bytes = encode[encoding](body);
			return files.route(path, (req, res) => {
				res.writeHead(200, {
					'Content-Type': 'text/plain',
					'Content-Encoding': encoding,
					'Content-Length': bytes.length,
				});
				res.end(bytes);
			});
		},
		/** Announces `length` bytes, sends `sent` of them, then drops the connection. */
		cut(path, { length, sent }) {
			return files.route(path, (req, res) => {
				res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': length });
				res.write(Buffer.alloc(sent, 65), () => res.socket?.destroy());
			});
		},
		/** Answers `status` after `delayMs`, with Location `to` for a redirect. */
		slow(path, { delayMs, status = 200, to, body = 'late' }) {
			return files.route(path, (req, res) => {
				setTimeout(() => {
					if (res.destroyed) return;
					res.writeHead(status, to ? { Location: to } : { 'Content-Type': 'text/plain' });
					res.end(to ? '' : body);
				}, delayMs);
			});
		},
		async stop() {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(() => resolve()));
		},
	};
	const server = http.createServer((req, res) => {
		const record = { path: req.url, at: Date.now(), closedAt: undefined };
		files.requests.push(record);
		files.open += 1;
		files.maxOpen = Math.max(files.maxOpen, files.open);
		res.on('close', () => {
			files.open -= 1;
			record.closedAt = Date.now();
		});
		const handler = routes.get(req.url);
		if (!handler) {
			res.writeHead(404).end();
			return;
		}
		handler(req, res, record);
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve) => server.listen(0, host, () => resolve(undefined)));
	files.url = `http://${host}:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
	return files;
}

module.exports = { startFileServer };
