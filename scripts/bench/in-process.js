'use strict';
/**
 * The benchmarks that run in this process, without `n8n execute`: the trigger's real `poll()` through
 * n8n-core's PollContext (test/harness), and a micro-benchmark of the per-item work on dist/ as shipped.
 */
const { createSandbox } = require('../../sandbox/server');
const { LATENCY_MS, JITTER_MS, TOKEN } = require('./service');

/** A poll with nothing new and one with `sizes.poll` new messages, on 5,000 messages of history. */
async function triggerBench(sizes) {
	const { createPollingTrigger: createTrigger } = require('../../test/harness/n8n');
	const sandbox = await createSandbox({
		tokens: { [TOKEN]: 'ct_me' },
		seed: 'none',
		latencyMs: LATENCY_MS,
		latencyJitterMs: JITTER_MS,
	}).start();
	try {
		sandbox.store.addContact({ id: 'ct_ann' });
		sandbox.store.createConversation({ contact_id: 'ct_ann' });
		for (let i = 0; i < 5000; i++)
			sandbox.store.sendMessage(
				'ct_ann',
				{ conversation_id: 'conv_00000001', message: `old ${i}` },
				{ createdAt: 1_700_000_000 + i },
			);
		const trigger = createTrigger({
			credentials: {
				baseUrl: sandbox.url,
				accessToken: TOKEN,
				timestampUnit: 'auto',
				ownContactId: 'ct_me',
			},
		});
		await trigger.poll();
		const time = async () => {
			const before = sandbox.stats.requests;
			const started = performance.now();
			const result = await trigger.poll();
			return {
				wallMs: performance.now() - started,
				requests: sandbox.stats.requests - before,
				emitted: result?.[0]?.length ?? 0,
			};
		};
		const quiet = await time();
		for (let i = 0; i < sizes.poll; i++)
			sandbox.store.sendMessage('ct_ann', {
				conversation_id: 'conv_00000001',
				message: `new ${i}`,
			});
		const busy = await time();
		return { quiet, busy, stateBytes: JSON.stringify(trigger.state()).length };
	} finally {
		await sandbox.stop();
	}
}

/** µs per call of each piece of per-item work, after a warm-up. */
function microBench() {
	const { encodeForm } = require('../../dist/nodes/shared/transport/form');
	const { buildUrl } = require('../../dist/nodes/shared/transport/url');
	const { withIsoTimestamps } = require('../../dist/nodes/shared/timestamps');
	const { reactionsFromInput } = require('../../dist/nodes/Messaging/helpers/reactions');
	const message = {
		id: 'msg_00000001',
		conversation_id: 'conv_1',
		contact: {
			id: 'ct_ann',
			username: 'ann',
			created_at: 1_700_000_000,
			last_active_at: 1_700_000_100,
		},
		message: 'Hello & welcome',
		reactions: [{ like: ['ann'] }],
		attachments: [],
		read_at: null,
		created_at: 1_700_000_000,
		updated_at: null,
	};
	const cases = {
		'URL of a Get (encoded id)': () =>
			buildUrl('https://api.example.com/v1/', { path: ['messages', 'msg_00000001'] }),
		'form body of a Send (text, 2 attachments)': () =>
			encodeForm({
				conversation_id: 'conv_1',
				message: 'Hello & welcome 👋',
				attachments: [{ name: 'a.pdf' }, { name: 'b.png' }],
			}),
		'reactions rows to form body (3 names, 6 reactors)': () =>
			encodeForm({
				reactions: reactionsFromInput({
					reaction: [
						{ name: 'like', reactors: 'ann, bob' },
						{ name: 'a&b', reactors: 'cy, dan' },
						{ name: '👍', reactors: 'ed, zoë' },
					],
				}),
			}),
		'ISO timestamps added to a message': () => withIsoTimestamps(message, 'auto'),
	};
	const results = {};
	for (const [name, fn] of Object.entries(cases)) {
		for (let i = 0; i < 20_000; i++) fn(); // warm up
		const rounds = 200_000;
		const started = process.hrtime.bigint();
		for (let i = 0; i < rounds; i++) fn();
		results[name] = Number(process.hrtime.bigint() - started) / 1000 / rounds;
	}
	return results;
}

module.exports = { triggerBench, microBench };
