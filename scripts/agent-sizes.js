'use strict';
/**
 * What an AI agent's tool call returns, in characters (as n8n hands it to the model: JSON of the output
 * items), for Get Many with Simplify on and off and for Get Context. A support chat of 500 messages in the
 * sandbox, run through n8n-core in-process. Run: bash scripts/toolchain.sh node scripts/agent-sizes.js
 */
const { runMessagingNode } = require('../test/harness/n8n');
const { startSandbox, byId } = require('../test/harness/sandbox');

const LINES = [
	'Hi, my order 4411 has not arrived yet, can you check?',
	'Sure, let me look that up for you right now.',
	'It shipped on Monday with the tracking number ZX-99812.',
	'Thanks! The tracking page says it is stuck in customs.',
	'I have asked the carrier; you will hear from us by tomorrow.',
];

async function main() {
	const { sandbox, credentials } = await startSandbox({ seed: 'none' });
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_me', username: 'support' });
	store.createConversation({ contact_id: 'ct_ann' });
	for (let n = 0; n < 500; n++) {
		const m = store.sendMessage(
			n % 2 ? 'ct_me' : 'ct_ann',
			{
				conversation_id: 'conv_00000001',
				message: LINES[n % LINES.length],
			},
			{ createdAt: 1_764_000_000 + n * 90 },
		);
		if (n % 7 === 0) store.updateMessage(m.id, { reactions: { like: ['ct_me'] } });
	}
	const chars = async (parameters) => {
		const { items, error } = await runMessagingNode({
			parameters: { conversationId: byId('conv_00000001'), ...parameters },
			credentials,
			typeVersion: 2,
			type: 'n8n-nodes-messaging.messagingTool',
		});
		if (error) throw error;
		return JSON.stringify(items.map((i) => i.json)).length;
	};
	const rows = [];
	for (const limit of [10, 50]) {
		for (const simplify of [false, true]) {
			const n = await chars({
				resource: 'message',
				operation: 'getAll',
				limit,
				simplify,
				filters: { conversationId: byId('conv_00000001') },
			});
			rows.push([
				`Get Many, ${limit} messages, Simplify ${simplify ? 'on' : 'off'}`,
				n,
				Math.round(n / limit),
			]);
		}
	}
	for (const [maxMessages, maxCharacters] of [
		[50, undefined],
		[500, undefined],
		[500, 1_000_000],
	]) {
		const n = await chars({
			resource: 'conversation',
			operation: 'getContext',
			maxMessages,
			...(maxCharacters ? { options: { maxCharacters } } : {}),
		});
		const budget = maxCharacters ? `Max Characters ${maxCharacters}` : 'default budget';
		rows.push([`Get Context, ${maxMessages} messages, ${budget}`, n, Math.round(n / maxMessages)]);
	}
	await sandbox.stop();
	console.log('| Tool call | Characters | Per message |\n|---|---:|---:|');
	for (const [what, n, per] of rows)
		console.log(`| ${what} | ${n.toLocaleString('en-US')} | ${per} |`);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
