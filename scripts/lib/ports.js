'use strict';
const net = require('node:net');

/**
 * A free loopback port for a server of ours, below Linux's ephemeral range (32768-60999): a port the
 * OS handed out for listen(0) can be taken by an outgoing connection (to Postgres, Redis…) before the
 * server that was meant to get it starts. Never the same port twice in one process.
 */
const handedOut = new Set();
async function freePort() {
	for (let tries = 0; tries < 200; tries++) {
		const port = 20_000 + Math.floor(Math.random() * 12_000);
		if (handedOut.has(port)) continue;
		const free = await new Promise((resolve) => {
			const server = net.createServer();
			server.once('error', () => resolve(false));
			server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
		});
		if (free) {
			handedOut.add(port);
			return port;
		}
	}
	throw new Error('no free loopback port between 20000 and 32000');
}

module.exports = { freePort };
