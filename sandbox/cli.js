#!/usr/bin/env node
'use strict';
/**
 * `npm run sandbox -- [--port 4010] [--token T] [--unit s|ms] [--order newest_first|oldest_first]
 *   [--max-page-size 100] [--latency-ms 0] [--latency-jitter-ms 0] [--rate-limit 100] [--rate-429 0.1] [--rate-500 0] [--rate-503 0]
 *   [--rate-drop 0] [--ignore-cursor] [--seed demo|none]`
 */
const { createSandbox } = require('./server');

function parseArgs(argv) {
	const options = { port: 4010, faults: {} };
	const number = (text, flag) => {
		const value = Number(text);
		if (!Number.isFinite(value)) throw new Error(`${flag} needs a number, got ${text}`);
		return value;
	};
	for (let i = 0; i < argv.length; i++) {
		const flag = argv[i];
		const next = () => argv[++i];
		switch (flag) {
			case '--port': options.port = number(next(), flag); break;
			case '--host': options.host = next(); break;
			case '--token': options.tokens = { [next()]: 'ct_me' }; break;
			case '--unit': options.unit = next(); break;
			case '--order': options.order = next(); break;
			case '--max-page-size': options.maxPageSize = number(next(), flag); break;
			case '--latency-ms': options.latencyMs = number(next(), flag); break;
			case '--latency-jitter-ms': options.latencyJitterMs = number(next(), flag); break;
			case '--rate-limit': options.rateLimit = { perSecond: number(next(), flag) }; break;
			case '--rate-429': options.faults.rate429 = number(next(), flag); break;
			case '--rate-500': options.faults.rate500 = number(next(), flag); break;
			case '--rate-503': options.faults.rate503 = number(next(), flag); break;
			case '--rate-drop': options.faults.rateDrop = number(next(), flag); break;
			case '--ignore-cursor': options.ignoreCursor = true; break;
			case '--seed': options.seed = next(); break;
			case '--quiet-log': options.recordRequests = false; break;
			default: throw new Error(`Unknown option ${flag} (see the header of sandbox/cli.js)`);
		}
	}
	if (!['s', 'ms'].includes(options.unit ?? 's')) throw new Error('--unit is s or ms');
	if (!['newest_first', 'oldest_first'].includes(options.order ?? 'newest_first')) throw new Error('--order is newest_first or oldest_first');
	options.recordRequests ??= false;
	return options;
}

async function main() {
	let options;
	try {
		options = parseArgs(process.argv.slice(2));
	} catch (error) {
		console.error(error.message);
		process.exit(2);
	}
	const sandbox = createSandbox(options);
	await sandbox.start();
	const token = Object.keys(sandbox.config.tokens)[0];
	console.log(`Sandbox messaging service on ${sandbox.url} (base URL for the credential)`);
	console.log(`Access token: ${token}; timestamps in ${sandbox.config.unit === 'ms' ? 'milliseconds' : 'seconds'}; lists ${sandbox.config.order.replace('_', ' ')}`);
	console.log(`Try: curl -H 'Authorization: Bearer ${token}' ${sandbox.url}/v1/conversations`);
	const stop = async () => {
		await sandbox.stop();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

if (require.main === module) main();

module.exports = { parseArgs };
