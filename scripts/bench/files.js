#!/usr/bin/env node
'use strict';
/**
 * Attachments bench (docs/files.md): the memory the Messaging node takes to send files from binary data and
 * to download them, through n8n-core's execution contexts (test/harness/n8n.js) against the sandbox on
 * loopback (in its own process, so its parsing and storing is not measured). Each workload runs in a fresh
 * process: the input node stores the files first; then, as the Messaging node starts, garbage is collected,
 * the kernel's peak-RSS mark is reset (Linux: /proc/self/clear_refs) and the RSS read ("start"); "peak" is
 * the highest RSS from there to the end of the run. glibc's mmap threshold is fixed (runChild), so large
 * buffers are counted when made and given back when freed. Needs a build (dist/).
 *
 * `node scripts/bench/files.js [--modes memory,filesystem] [--compare REF]`, or `npm run bench -- --only
 * files [--compare REF] [--splice]`. --compare builds REF (a commit, branch or tag) into a temporary folder
 * and runs each workload with it right before the current build (scripts/bench/filesCompare.js).
 */
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
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
const MODES = ['memory', 'filesystem'];
const DIST = path.join(__dirname, '..', '..', 'dist');

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
				const url = sandbox.addFile(crypto.randomBytes(size), `f${i}.bin`);
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

/** This process's resident set and its peak since the last reset, in bytes (Linux). */
function memory() {
	const status = fs.readFileSync('/proc/self/status', 'utf8');
	const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1]) * 1024;
	return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * Marks the node's start: collects garbage (twice, with a pause: V8 frees buffers' memory on a background
 * thread after the collection), resets the peak mark, and returns the RSS then.
 */
async function markStart() {
	global.gc();
	await new Promise((resolve) => setTimeout(resolve, 200));
	global.gc();
	await new Promise((resolve) => setTimeout(resolve, 200));
	fs.writeFileSync('/proc/self/clear_refs', '5');
	return memory().rss;
}

async function one(name, mode) {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'files-bench-'));
	process.env.N8N_USER_FOLDER = work;
	const dist = process.env.MESSAGING_DIST ?? DIST;
	// The measured part begins where the Messaging node's execute() does (the input files stored).
	const { Messaging } = require(path.join(dist, 'nodes/Messaging/Messaging.node.js'));
	const execute = Messaging.prototype.execute;
	let start;
	let started;
	Messaging.prototype.execute = async function (...args) {
		start = await markStart();
		started = Date.now();
		return await execute.apply(this, args);
	};
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
			// Random bytes: their base64 holds "+" and "/", which the form encoding percent-encodes.
			fs.writeFileSync(file, crypto.randomBytes(w.size));
			input.push({
				json: { i },
				$binary: {
					data: { path: file, fileName: `f${i}.bin`, mimeType: 'application/octet-stream' },
				},
			});
		}
	}
	global.gc();
	const before = memory().rss;
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
	const { peak } = memory();
	await service.stop();
	fs.rmSync(work, { recursive: true, force: true });
	return { before, start, peak, ms };
}

/** One workload in a fresh process with the build in `dist`. */
function runChild(name, mode, dist) {
	const child = spawnSync(
		process.execPath,
		['--expose-gc', __filename, '--one', name, '--mode', mode],
		{
			encoding: 'utf8',
			env: {
				...process.env,
				N8N_LOG_LEVEL: 'silent',
				MESSAGING_DIST: dist,
				// Buffers over 128 KB mapped and unmapped, never kept by glibc for reuse: memory the input node
				// freed is not counted as free room for the Messaging node, and a large buffer counts when made.
				MALLOC_MMAP_THRESHOLD_: '131072',
			},
		},
	);
	if (child.status !== 0) throw new Error(`${name} (${mode}): ${child.stderr}`);
	const result = JSON.parse(child.stdout.trim().split('\n').pop());
	return { ...result, loadAverage: os.loadavg()[0] };
}

/**
 * Every workload in each mode; with `before` (an older build's dist), that build's run right before the
 * current one's, workload by workload. Returns { [mode]: [{ name, workload, after, before? }] }.
 */
function runFiles({ modes = MODES, before, log = () => {} } = {}) {
	if (!fs.existsSync('/proc/self/clear_refs')) throw new Error('the files bench needs Linux');
	const results = {};
	for (const mode of modes) {
		results[mode] = [];
		for (const [name, workload] of Object.entries(WORKLOADS)) {
			const row = { name, workload };
			if (before) row.before = runChild(name, mode, before);
			row.after = runChild(name, mode, DIST);
			const mb = (r) => ((r.peak - r.start) / MB).toFixed(0);
			log(
				`${mode}, ${name}: ${before ? `before +${mb(row.before)} MB, ` : ''}+${mb(row.after)} MB (load ${row.after.loadAverage.toFixed(2)})\n`,
			);
			results[mode].push(row);
		}
	}
	return results;
}

/** The bench as `npm run bench` runs it: { results, compared, section } (section: BENCHMARKS.md's). */
function benchFiles({ compare, started = new Date(), modes = MODES, log = () => {} } = {}) {
	const { buildRef } = require('./filesCompare');
	const { filesSection } = require('./filesReport');
	const compared = compare ? buildRef(compare) : undefined;
	try {
		const results = runFiles({ modes, before: compared?.dist, log });
		return { results, compared, section: filesSection(results, { started, compared }) };
	} finally {
		compared?.cleanup();
	}
}

async function main() {
	const args = process.argv.slice(2);
	const valueOf = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
	if (args[0] === '--sandbox') return await serveSandbox();
	if (args[0] === '--one') {
		process.stdout.write(JSON.stringify(await one(args[1], valueOf('--mode'))));
		return;
	}
	const { section } = benchFiles({
		compare: valueOf('--compare'),
		modes: valueOf('--modes')?.split(',') ?? MODES,
		log: (text) => process.stderr.write(text),
	});
	console.log(section);
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
}

module.exports = { benchFiles, runFiles, WORKLOADS };
