#!/usr/bin/env node
'use strict';
/**
 * Variant C of the benchmark, in its own process (like n8n): the same calls as a plain undici script with
 * keep-alive, at a given concurrency ("unbounded": all at once). Prints one JSON line of results.
 * Usage: node undici-client.js '<json: {baseUrl, token, workload, items, concurrency}>'
 */
const { Agent, request } = require('undici');

async function main() {
	const { baseUrl, token, workload, items, concurrency, conversationId } = JSON.parse(
		process.argv[2],
	);
	const agent = new Agent({
		keepAliveTimeout: 30_000,
		connections: concurrency === 'unbounded' ? null : concurrency,
	});
	const headers = { authorization: `Bearer ${token}` };
	const form = { ...headers, 'content-type': 'application/x-www-form-urlencoded' };
	const call = async (method, path, body) => {
		const response = await request(`${baseUrl}/v1/${path}`, {
			method,
			headers: body ? form : headers,
			body,
			dispatcher: agent,
		});
		const text = await response.body.text();
		if (response.statusCode >= 300) throw new Error(`${response.statusCode}`);
		return JSON.parse(text);
	};
	const started = performance.now();
	let failed = 0;
	if (workload === 'getMany') {
		let cursor;
		let count = 0;
		for (;;) {
			const page = await call(
				'GET',
				`messages?conversation_id=${conversationId}&limit=100${cursor ? `&starting_after=${cursor}` : ''}`,
			);
			count += page.data.length;
			if (!page.has_more) break;
			cursor = page.data.at(-1).id;
		}
		if (count !== items.length) failed = items.length - count;
	} else {
		const one = {
			get: (id) => call('GET', `messages/${encodeURIComponent(id)}`),
			mute: (id) => call('PUT', `conversations/${encodeURIComponent(id)}`, 'is_muted=true'),
			send: (n) => call('POST', 'messages', `conversation_id=${conversationId}&message=n${n}`),
		}[workload];
		const limit = concurrency === 'unbounded' ? items.length : concurrency;
		let next = 0;
		const worker = async () => {
			while (next < items.length) {
				const item = items[next++];
				try {
					await one(item);
				} catch {
					failed += 1;
				}
			}
		};
		await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	}
	const wallMs = performance.now() - started;
	await agent.close();
	console.log(
		JSON.stringify({
			wallMs,
			failed,
			rssPeakKb: Number(
				/VmHWM:\s+(\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1],
			),
		}),
	);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
