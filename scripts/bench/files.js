#!/usr/bin/env node
'use strict';
/**
 * Attachments bench (docs/files.md): peak RSS of the Messaging node sending files from binary data and
 * downloading them, through n8n-core's execution contexts (test/harness/n8n.js) against the sandbox on
 * loopback. Each workload runs in a fresh process; peak = the process's maxRSS, base = its RSS once the
 * input files exist, before the node runs. `node scripts/bench/files.js [--mode memory|filesystem]`
 * (n8n's binary data mode; filesystem: files under a temporary folder). Needs a build (dist/).
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const MB = 1024 * 1024;
const WORKLOADS = {
	'send 1 x 25 MB, form (base64)': { files: 1, size: 25 * MB, upload: 'form' },
	'send 1 x 25 MB, multipart': { files: 1, size: 25 * MB, upload: 'multipart' },
	'send 100 x 1 MB, form (base64)': { files: 100, size: MB, upload: 'form' },
	'send 100 x 1 MB, multipart': { files: 100, size: MB, upload: 'multipart' },
	'get 1 x 25 MB with Download Attachments': { files: 1, size: 25 * MB, download: true },
	'get 100 x 1 MB with Download Attachments': { files: 100, size: MB, download: true },
};

/** The sandbox in its own process, so that its parsing and storing of the bodies is not measured. */
function sandboxProcess() {
	const { fork } = require('node:child_process');
	const child = fork(__filename, ['--sandbox'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	let next = 0;
	const pending = new Map();
	child.on('message', ({ id, result, error }) => {
		const { resolve, reject } = pending.get(id);
		pending.delete(id);
		if (error) reject(new Error(error));
		else resolve(result);
	});
	const call = (op, ...args) =>
		new Promise((resolve, reject) => {
			pending.set(++next, { resolve, reject });
			child.send({ id: next, op, args });
		});
	return { call, stop: () => call('stop').then(() => child.kill()) };
}

async function serveSandbox() {
	const { startSandbox } = require('../../test/harness/sandbox');
	const { sandbox, credentials } = await startSandbox({ seed: 'none', recordRequests: false });
	const ops = {
		credentials: () => credentials,
		setup: () => {
			sandbox.store.addContact({ id: 'ct_ann', username: 'ann' });
			return sandbox.store.createConversation({ contact_id: 'ct_ann' }).id;
		},
		addMessages: (conversation, count, size) => {
			for (let i = 0; i < count; i++) {
				const url = sandbox.addFile(Buffer.alloc(size, i & 255), `f${i}.bin`);
				sandbox.store.sendMessage('ct_ann', {
					conversation_id: conversation,
					message: `m${i}`,
					attachments: [{ name: `f${i}.bin`, url }],
				});
			}
		},
		stop: () => sandbox.stop(),
	};
	process.on('message', async ({ id, op, args }) => {
		try {
			process.send({ id, result: await ops[op](...args) });
		} catch (error) {
			process.send({ id, error: error.message });
		}
	});
}

async function one(name, mode) {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'files-bench-'));
	process.env.N8N_USER_FOLDER = work;
	const { runMessagingNode } = require('../../test/harness/n8n');
	const { byId } = require('../../test/harness/sandbox');
	if (mode === 'filesystem') {
		// n8n-core's own copy of the DI container (the one its services are registered in).
		const { Container } = require(
			require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
		);
		const { BinaryDataService } = require('n8n-core');
		const service = Container.get(BinaryDataService);
		Object.assign(service.config, {
			mode: 'filesystem',
			localStoragePath: path.join(work, 'binary'),
		});
		await service.init();
	}
	const w = WORKLOADS[name];
	const service = sandboxProcess();
	const credentials = await service.call('credentials');
	const conversation = await service.call('setup');
	const inputDir = path.join(work, 'in');
	fs.mkdirSync(inputDir);
	const input = [];
	if (w.download) await service.call('addMessages', conversation, w.files, w.size);
	else {
		for (let i = 0; i < w.files; i++) {
			const file = path.join(inputDir, `f${i}.bin`);
			fs.writeFileSync(file, Buffer.alloc(w.size, i & 255));
			input.push({
				json: { i },
				$binary: {
					data: { path: file, fileName: `f${i}.bin`, mimeType: 'application/octet-stream' },
				},
			});
		}
	}
	global.gc?.();
	const base = process.memoryUsage().rss;
	const started = Date.now();
	const parameters = w.download
		? {
				resource: 'message',
				operation: 'getAll',
				returnAll: true,
				filters: {},
				options: { downloadAttachments: true, maxAttachmentSize: 0, parallelRequests: 1 },
			}
		: {
				resource: 'message',
				operation: 'send',
				conversationId: byId(conversation),
				text: 'file',
				additionalFields: { binaryAttachments: 'data' },
				options: { attachmentUpload: w.upload, maxAttachmentSize: 0 },
			};
	const { items, error } = await runMessagingNode({
		parameters,
		credentials,
		input: w.download ? [{}] : input,
	});
	const ms = Date.now() - started;
	if (error) throw error;
	if (items.length !== w.files) throw new Error(`${items.length} items, expected ${w.files}`);
	const peak = process.resourceUsage().maxRSS * 1024;
	await service.stop();
	fs.rmSync(work, { recursive: true, force: true });
	return { base, peak, ms };
}

async function main() {
	const args = process.argv.slice(2);
	const mode = args.includes('--mode') ? args[args.indexOf('--mode') + 1] : 'memory';
	if (args[0] === '--sandbox') return await serveSandbox();
	if (args[0] === '--one') {
		process.stdout.write(JSON.stringify(await one(args[1], mode)));
		return;
	}
	const mb = (bytes) => (bytes / MB).toFixed(0);
	console.log(
		`| workload (binary data mode: ${mode}) | RSS before, MB | peak RSS, MB | peak - before, MB | time, ms |`,
	);
	console.log('|---|---:|---:|---:|---:|');
	for (const name of Object.keys(WORKLOADS)) {
		const child = spawnSync(
			process.execPath,
			['--expose-gc', __filename, '--one', name, '--mode', mode],
			{
				encoding: 'utf8',
				env: { ...process.env, N8N_LOG_LEVEL: 'silent' },
			},
		);
		if (child.status !== 0) throw new Error(`${name}: ${child.stderr}`);
		const { base, peak, ms } = JSON.parse(child.stdout.trim().split('\n').pop());
		console.log(`| ${name} | ${mb(base)} | ${mb(peak)} | ${mb(peak - base)} | ${ms} |`);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
