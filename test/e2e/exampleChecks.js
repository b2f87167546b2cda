'use strict';
/**
 * The examples suite's checks of the examples a person runs by hand (Execute workflow): each run's output
 * items and what reached its sandbox. Called by ./examples.e2e.js with its n8n running.
 */
const assert = require('node:assert/strict');
const { waitFor } = require('../../scripts/lib/wait');
const { TOKENS, itemsOf, linkIn, press, archived } = require('./exampleRuns');

/** `of(file)`: the example's sandbox client (exampleClient); `runs`: restRuns of the suite's n8n. */
async function manualExampleChecks({ check, of, runs }) {
	await check('mute-group: the team conversation not muted yet is muted', async () => {
		const { id, store } = of('mute-group.json');
		const run = await runs.finished(await runs.start(id, 'Run Now'));
		assert.deepEqual(
			itemsOf(run, 'Team Conversations').map((c) => [c.id, c.group_id, c.muted]),
			[['conv_00000005', 'grp_team', false]],
		);
		assert.deepEqual(
			itemsOf(run, 'Mute').map((c) => [c.id, c.is_muted]),
			[['conv_00000005', true]],
		);
		assert.equal(store.conversation('conv_00000005').is_muted, true);
	});

	await check(
		'react-to-keyword: only the message mentioning "urgent" gets 👀 from ct_me',
		async () => {
			const { id, store } = of('react-to-keyword.json');
			const run = await runs.finished(await runs.start(id, 'Run Now'));
			assert.equal(itemsOf(run, 'Recent Messages').length, store.messages.size);
			assert.deepEqual(
				itemsOf(run, 'Mentions Urgent').map((m) => m.text),
				['Urgent: the deploy failed'],
			);
			const withEyes = [...store.messages.values()].filter((m) => m.reactions.eyes);
			assert.deepEqual(
				withEyes.map((m) => [m.message, m.reactions.eyes]),
				[['Urgent: the deploy failed', ['ct_me']]],
			);
		},
	);

	await check('archive-stale: Run Now archives the conversation inactive for 45 days', async () => {
		const { id, store } = of('archive-stale.json');
		const run = await runs.finished(await runs.start(id, 'Run Now'));
		assert.deepEqual(
			itemsOf(run, 'Inactive 30+ Days').map((c) => c.id),
			['conv_00000004'],
		);
		assert.deepEqual(
			itemsOf(run, 'Archive').map((c) => c.id),
			['conv_00000004'],
		);
		assert.deepEqual(archived(store).sort(), ['conv_00000003', 'conv_00000004']);
	});

	await check(
		'approval-before-archive: the request waits; "Yes, archive" pressed, the stale conversation is archived',
		async () => {
			const { id, store, find, texts } = of('approval-before-archive.json');
			const execution = await runs.start(id, 'Run Now');
			const request = await find(
				'conv_00000001',
				/^Archive 1 conversation\(s\) inactive for 30\+ days\? conv_00000004/,
			);
			assert.equal((await runs.read(execution)).status, 'waiting');
			assert.deepEqual(archived(store), ['conv_00000003']);
			await press(linkIn(request.message, 'Yes, archive'));
			const run = await runs.finished(execution);
			assert.deepEqual(
				itemsOf(run, 'Archive').map((c) => c.id),
				['conv_00000004'],
			);
			assert.deepEqual(archived(store).sort(), ['conv_00000003', 'conv_00000004']);
			assert.ok(!texts('conv_00000001').some((t) => t.startsWith('Nothing archived')));
		},
	);

	await check(
		'approval-in-chat-before-archive: bob reacts -1 in the team conversation; nothing is archived, and it says who declined',
		async () => {
			const { id, store, find, call } = of('approval-in-chat-before-archive.json');
			const execution = await runs.start(id, 'Run Now');
			const question = await find('conv_00000005', /^Archive 1 conversation\(s\)/);
			assert.match(
				question.message,
				/conv_00000004\n\nReact with "\+1" to approve, "-1" to decline\.$/,
			);
			await call(TOKENS.bob, 'PUT', `/v1/messages/${question.id}`, { 'reactions[-1][]': 'ct_bob' });
			const run = await runs.finished(execution);
			const [decision] = itemsOf(run, 'Ask in the Chat');
			assert.deepEqual(
				[decision.approved, decision.declinedBy, decision.timedOut, decision.sent.id],
				[false, ['ct_bob'], false, question.id],
			);
			await find('conv_00000005', /^Nothing archived \(declined by ct_bob\)\.$/);
			assert.deepEqual(archived(store), ['conv_00000003']);
		},
	);

	await check(
		'ask-and-continue: a reply not starting with S or M is skipped; ann’s "m please" is confirmed as size M',
		async () => {
			const { id, find, call, texts, listChecks } = of('ask-and-continue.json');
			const execution = await runs.start(id, 'Run Now');
			await find('conv_00000001', /^Which size should I order for you/);
			await call(TOKENS.ann, 'POST', '/v1/messages', {
				conversation_id: 'conv_00000001',
				message: 'hm, which sizes are there?',
			});
			const checks = listChecks();
			await waitFor('a check to see it (and skip it)', () => listChecks() >= checks + 2, 30_000);
			await call(TOKENS.ann, 'POST', '/v1/messages', {
				conversation_id: 'conv_00000001',
				message: 'm please',
			});
			const run = await runs.finished(execution);
			const [answer] = itemsOf(run, 'Ask in the Chat');
			assert.deepEqual(
				[answer.timedOut, answer.reply.text, answer.reply.from],
				[false, 'm please', 'ann'],
			);
			assert.deepEqual(
				itemsOf(run, 'Confirm').map((m) => m.text),
				['Thanks! Ordering size M.'],
			);
			assert.equal(texts('conv_00000001').at(-1), 'Thanks! Ordering size M.');
			assert.equal(run.runData['No Answer'], undefined);
		},
	);
}

module.exports = { manualExampleChecks };
