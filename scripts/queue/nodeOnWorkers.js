'use strict';
/** Part 1 of the queue suite: the Messaging node on the workers, production webhooks many at once, every operation. */
const assert = require('node:assert/strict');
const { packageProblems } = require('./cluster');
const { PLAN, sleep, say, check } = require('./setting');

async function nodeOnWorkers({ mainProcess, workers, executions, service }) {
	const { store } = service;
	const before = new Map(workers.map((w) => [w.name, executions.get(w.name).started.size]));
	const report = store.createConversation({ contact_id: 'ct_cy' }).id;
	const messageCalls = Array.from({ length: PLAN.messageCalls }, (_, i) => {
		const conversation = store.createConversation({ contact_id: 'ct_ann' }).id;
		// More than one page (the node asks for 100 at a time), so Return All has to page.
		for (let n = 0; n < 130; n++)
			store.sendMessage('ct_ann', {
				conversation_id: conversation,
				message: `filler ${n}`,
			});
		const deleteId = store.sendMessage('ct_ann', {
			conversation_id: conversation,
			message: 'delete me',
		}).id;
		return {
			path: 'queue-messages',
			body: { conversation, tag: `m${i}`, deleteId },
		};
	});
	const conversationCalls = Array.from({ length: PLAN.conversationCalls }, (_, i) => ({
		path: 'queue-conversations',
		body: {
			contact: 'ct_dana',
			tag: `c${i}`,
			deleteId: store.createConversation({ contact_id: 'ct_cy' }).id,
			report,
		},
	}));
	const calls = [...messageCalls, ...conversationCalls];
	const call = async ({ path: route, body }) => {
		for (let attempt = 0; ; attempt++) {
			const response = await fetch(`${mainProcess.url}/webhook/${route}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
				signal: AbortSignal.timeout(180_000),
			});
			const text = await response.text();
			// Webhooks register while the main activates its workflows.
			if (response.status === 404 && attempt < 40) {
				await sleep(500);
				continue;
			}
			return { status: response.status, text };
		}
	};
	const t0 = Date.now();
	const answers = await Promise.all(calls.map(call));
	say(`${calls.length} webhook calls answered in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

	const failedCalls = answers
		.map((a, i) => ({ ...a, call: calls[i] }))
		.filter((a) => a.status !== 200);
	await check(`${calls.length} production webhook runs at once, all answered 200`, () => {
		if (failedCalls.length === 0) return;
		const problems = packageProblems(workers);
		const erroredOn = workers
			.map((w) => [
				w.name,
				w.output
					.split('\n')
					.filter((l) => /Worker errored|Unrecognized node type|Problem with execution/i.test(l)),
			])
			.filter(([, lines]) => lines.length > 0)
			.map(([name, lines]) => `${name}: ${lines.slice(0, 3).join(' | ')}`);
		throw new Error(
			`${failedCalls.length} of ${calls.length} calls failed, e.g. ${failedCalls[0].status} ${failedCalls[0].text.slice(0, 300)}\n` +
				`${problems.length > 0 ? `package problems:\n  ${problems.join('\n  ')}\n` : ''}${erroredOn.join('\n')}`,
		);
	});

	await check(
		'every message operation left the right state at the service (Send, Get, Update with reactions, Add/Remove Reaction, Delete, Get Many over pages)',
		() => {
			for (const { body } of messageCalls) {
				const messages = store
					.listMessages({ conversation_id: body.conversation })
					.map((m) => store.renderMessage(m));
				const sent = messages.find((m) => m.message === `q ${body.tag} edited`);
				assert.ok(sent, `${body.tag}: the edited message is missing`);
				assert.deepEqual(sent.reactions, [{ like: ['bob'] }, { 'party & fun': ['zoë'] }], body.tag);
				assert.deepEqual(sent.attachments, [{ name: 'a.txt' }], body.tag);
				assert.equal(
					store.messages.has(body.deleteId),
					false,
					`${body.tag}: ${body.deleteId} was not deleted`,
				);
				// 130 fillers + the sent one (the deleted one gone): Get Many with Return All read them all.
				assert.ok(
					messages.some((m) => m.message === 'count 131'),
					`${body.tag}: no "count 131" report`,
				);
			}
			const paged = service.requests.filter(
				(r) => r.method === 'GET' && r.path === '/v1/messages' && /starting_after=/.test(r.query),
			);
			assert.ok(
				paged.length >= messageCalls.length,
				`Get Many asked for a second page ${paged.length} times`,
			);
			for (const [method, pattern] of [
				['GET', /^\/v1\/messages\/msg_/],
				['PATCH|PUT', /^\/v1\/messages\/msg_/],
				['DELETE', /^\/v1\/messages\/msg_/],
				['POST', /^\/v1\/messages$/],
			]) {
				assert.ok(
					service.requests.some(
						(r) =>
							new RegExp(`^(${method})$`).test(r.method) &&
							pattern.test(r.path) &&
							r.status === 200,
					),
					`no ${method} ${pattern}`,
				);
			}
		},
	);

	await check(
		'every conversation operation left the right state at the service (Create, Get, Update, Archive/Unarchive, Pin/Unpin, Mute/Unmute, Get Many with filters, Delete)',
		() => {
			const reports = store.listMessages({ conversation_id: report }).map((m) => m.message);
			for (const { body } of conversationCalls) {
				const line = reports.find((text) => text.startsWith(`conv ${body.tag} `));
				assert.ok(line, `${body.tag}: no report`);
				const [, , id, , listed] = line.split(' ');
				assert.equal(listed, 'true', `${body.tag}: Get Many (archived, muted) did not list ${id}`);
				const created = store.conversation(id);
				assert.equal(created.contact_id, 'ct_dana');
				assert.equal(created.is_pinned, true, `${body.tag}: not pinned`);
				assert.equal(created.is_muted, true, `${body.tag}: not muted`);
				assert.ok(
					Math.abs(created.archived_at - Date.now() / 1000) < 600,
					`${body.tag}: archived_at ${created.archived_at} is not now`,
				);
				assert.equal(
					store.conversations.has(body.deleteId),
					false,
					`${body.tag}: ${body.deleteId} was not deleted`,
				);
				const updates = service.requests.filter(
					(r) =>
						/^(PATCH|PUT)$/.test(r.method) &&
						r.path === `/v1/conversations/${id}` &&
						r.status === 200,
				);
				// Update, Unarchive, Unpin, Unmute, Pin, Mute, Archive
				assert.equal(updates.length, 7, `${body.tag}: ${updates.length} updates of ${id}`);
			}
		},
	);

	await check(
		'the webhook runs ran on the workers, and both workers took some (worker log "Worker started execution")',
		() => {
			const counts = workers.map((w) => executions.get(w.name).started.size - before.get(w.name));
			say(
				`webhook executions per worker: ${workers.map((w, i) => `${w.name} ${counts[i]}`).join(', ')}`,
			);
			assert.equal(
				counts.reduce((a, b) => a + b, 0),
				calls.length,
				'every webhook run started on a worker, once',
			);
			for (const [i, count] of counts.entries())
				assert.ok(count > 0, `${workers[i].name} ran none`);
			assert.equal(
				(mainProcess.output.match(/Enqueued execution/g) ?? []).length >= calls.length,
				true,
				'the main enqueued them',
			);
		},
	);
}

module.exports = { nodeOnWorkers };
