'use strict';
/**
 * The trigger's events' property (version 2): over generated schedules of new messages (from two
 * people and the account itself, in two conversations), edits, reactions added and removed (by several
 * people and the account), new conversations and, when Group Bursts is on, bursts, with 429, 500 and
 * dropped connections at any request, executions that fail, crash or never start, and processes that
 * stop or die: 0 lost, every duplicate a marked redelivery, the account's own actions never delivered,
 * and a state that stays bounded.
 */
const fc = require('fast-check');
const { startSandbox } = require('../harness/sandbox');
const { createTriggerHost } = require('../harness/n8n');

const PAGE_SIZE = 4;
const WATCH_WINDOW = 60;
const PEOPLE = ['ct_ann', 'ct_bob', 'ct_me'];
// A fault the transport retries, or one that fails the check (`times`: outlasting its retries).
const FAULTS = [
	null,
	null,
	null,
	{ status: 429, retryAfter: 0 },
	{ status: 500 },
	{ drop: 'before' },
	{ status: 500, times: 8 },
	{ status: 403 },
];

const stepArbitrary = fc.record({
	messages: fc.array(fc.record({ from: fc.constantFrom(...PEOPLE), conversation: fc.nat(1) }), {
		maxLength: 4,
	}),
	edits: fc.array(fc.nat(5), { maxLength: 2 }),
	reactions: fc.array(
		fc.record({
			target: fc.nat(5),
			name: fc.constantFrom('👍', '✅'),
			who: fc.constantFrom(...PEOPLE),
		}),
		{ maxLength: 3 },
	),
	conversations: fc.nat(2),
	clockAdvanceSeconds: fc.constantFrom(0, 1, 2, 5, 12),
	fault: fc.constantFrom(...FAULTS),
	faultAtRequest: fc.nat(6),
	ends: fc.array(
		fc.constantFrom(
			'success',
			'success',
			'success',
			'nodeError',
			'crashed',
			'notStarted',
			'pending',
		),
		{
			minLength: 1,
			maxLength: 3,
		},
	),
	process: fc.constantFrom('none', 'none', 'none', 'none', 'restart', 'crash'),
});

const scheduleArbitrary = fc.record({
	order: fc.constantFrom('newest_first', 'oldest_first'),
	unit: fc.constantFrom('s', 'ms'),
	bursts: fc.boolean(),
	steps: fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }),
});

function newTotals() {
	return {
		schedules: 0,
		checks: 0,
		restarts: 0,
		crashes: 0,
		expected: 0,
		delivered: 0,
		lost: 0,
		reported: 0,
		unmarkedDuplicates: 0,
		redeliveries: 0,
		ownDelivered: 0,
		badBursts: 0,
		groupedBursts: 0,
		failedChecks: 0,
		writtenByFailedChecks: 0,
		brokenEditChains: 0,
		maxStateBytes: 0,
	};
}

/** What identifies one change in an item, across its redeliveries. */
function identities(json) {
	switch (json.event) {
		case 'newMessage':
			return [`m:${json.message.id}`];
		case 'messageBurst':
			return json.messages.map((m) => `m:${m.id}`);
		case 'newConversation':
			return [`c:${json.conversation.id}`];
		case 'reactionAdded':
		case 'reactionRemoved':
			return [`${json.event}:${json.message.id}:${json.reaction}:${json.reactor}`];
		case 'messageEdited':
			return [`e:${json.message.id}:${json.after.message}`];
		default:
			throw new Error(`unexpected item ${JSON.stringify(json)}`);
	}
}

async function runSchedule(schedule, totals) {
	const lostBefore = totals.lost;
	let now = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
	const { sandbox, credentials } = await startSandbox({
		seed: 'none',
		order: schedule.order,
		unit: schedule.unit,
		clock: () => now,
		recordRequests: false,
		credentials: { ownContactId: 'ct_me' },
	});
	const store = sandbox.store;
	let host;
	try {
		for (const id of PEOPLE) store.addContact({ id });
		const conversations = [
			store.createConversation({ contact_id: 'ct_ann' }).id,
			store.createConversation({ contact_id: 'ct_bob' }).id,
		];
		const messages = []; // { id, from, original, text }
		let counter = 0;
		const send = (from, conversation) => {
			counter += 1;
			const record = store.sendMessage(from, {
				conversation_id: conversations[conversation],
				message: `m${counter}`,
			});
			messages.push({ id: record.id, from, original: record.message, text: record.message });
			return record.id;
		};
		send('ct_ann', 0);
		send('ct_bob', 1);
		const pairs = new Map(); // `${id}\n${name}\n${who}` -> 'added' | 'removed'
		const createdAfterStart = { messages: [], conversations: [] };

		host = createTriggerHost({
			credentials,
			parameters: {
				interval: 5,
				unit: 'seconds',
				events: [
					'newMessage',
					'messageEdited',
					'reactionAdded',
					'reactionRemoved',
					'newConversation',
				],
				options: {
					pageSize: PAGE_SIZE,
					lookBackSeconds: 60,
					watchWindow: WATCH_WINDOW,
					...(schedule.bursts ? { groupBursts: true, quietPeriod: 4, maxWait: 15 } : {}),
				},
			},
		});
		await host.start();
		let ended = 0;
		const endExecutions = (ends) => {
			host.executions.slice(ended).forEach((execution, i) => {
				const end = ends[i % ends.length];
				if (end !== 'pending') execution.end(end);
			});
			ended = host.executions.length;
		};
		const newest = (k) => messages[Math.max(0, messages.length - 1 - k)];
		for (const step of schedule.steps) {
			now += step.clockAdvanceSeconds * 1000;
			for (const { from, conversation } of step.messages) {
				const id = send(from, conversation);
				createdAfterStart.messages.push({ id, from });
			}
			for (const target of new Set(step.edits)) {
				const message = newest(target);
				counter += 1;
				message.text = `e${counter}`;
				store.updateMessage(message.id, { message: message.text });
			}
			for (const { target, name, who } of step.reactions) {
				const message = newest(target);
				const key = `${message.id}\n${name}\n${who}`;
				const was = pairs.get(key);
				if (was === 'removed') continue; // each pair is added once and removed once at most
				pairs.set(key, was === 'added' ? 'removed' : 'added');
				const reactions = {};
				for (const [pair, state] of pairs) {
					const [id, reaction, reactor] = pair.split('\n');
					if (id !== message.id || state !== 'added') continue;
					(reactions[reaction] ??= []).push(reactor);
				}
				store.updateMessage(message.id, {
					reactions: Object.keys(reactions).length ? reactions : '',
				});
			}
			for (let i = 0; i < step.conversations; i++) {
				const contact = `ct_new${counter++}`;
				store.addContact({ id: contact });
				createdAfterStart.conversations.push(store.createConversation({ contact_id: contact }).id);
			}
			endExecutions(step.ends);
			if (step.process === 'restart') {
				totals.restarts += 1;
				await host.stop();
				await host.start();
			} else if (step.process === 'crash') {
				totals.crashes += 1;
				await host.crash();
				await host.start();
			}
			if (step.fault) {
				const { times = 1, ...fault } = step.fault;
				sandbox.failNext(...Array(step.faultAtRequest).fill({}), ...Array(times).fill(fault));
			}
			totals.checks += 1;
			const logged = host.logs.length;
			const stateBefore = JSON.stringify(host.state()?.state);
			await host.tick();
			if (host.logs.slice(logged).some((line) => line.includes('check failed'))) {
				totals.failedChecks += 1;
				// A failed check writes nothing: the events' state is as before it.
				if (JSON.stringify(host.state()?.state) !== stateBefore) totals.writtenByFailedChecks += 1;
			}
			sandbox.clearFaults();
			totals.maxStateBytes = Math.max(
				totals.maxStateBytes,
				JSON.stringify(host.state() ?? {}).length,
			);
		}
		// Then all goes well, with time for every burst to go quiet, until every delivery has settled.
		const endRunning = () => {
			for (const execution of host.executions)
				if (execution.status === 'running' && execution.processNumber === host.process.number)
					execution.end('success');
			ended = host.executions.length;
		};
		for (let round = 0; round < 14; round++) {
			now += 5_000;
			endRunning();
			await host.tick();
			const ledger = host.state().deliveries;
			const held = host.state().state?.bursts?.length ?? 0;
			if (
				ended === host.executions.length &&
				held === 0 &&
				(!ledger || (ledger.inFlight.length === 0 && ledger.redeliver.length === 0))
			)
				break;
		}
		endRunning();
		await host.tick();
		const executions = host.executions;
		const reports = host.reported;
		await host.stop();
		host = undefined;

		// Judge.
		const seen = new Map(); // identity -> [{ json, execution }]
		const unmarked = [];
		for (const execution of executions) {
			for (const json of execution.json) {
				if (json.redelivery !== true) unmarked.push(json);
				for (const identity of identities(json)) {
					if (!seen.has(identity)) seen.set(identity, []);
					seen.get(identity).push({ json, execution });
				}
				if (json.event === 'messageBurst') {
					const senders = new Set(json.messages.map((m) => `${m.conversation_id}/${m.contact.id}`));
					if (senders.size !== 1) totals.badBursts += 1;
					if (json.count > 1 && json.redelivery !== true) totals.groupedBursts += 1;
				}
				if (
					(json.event === 'newMessage' && json.message.contact.id === 'ct_me') ||
					(json.event === 'messageBurst' && json.sender.id === 'ct_me') ||
					(json.event === 'messageEdited' && json.message.contact.id === 'ct_me') ||
					json.reactor === 'ct_me'
				)
					totals.ownDelivered += 1;
			}
		}
		// Keys whose every attempt was lost are reported to n8n (as for messages): not lost, counted apart.
		const reportedKeys = reports.flatMap((error) =>
			(/Message ids: (.*?)\. Each attempt/.exec(error.description ?? '')?.[1] ?? '').split(', '),
		);
		const reported = (identity) => {
			const [kind, ...rest] = identity.split(':');
			if (kind === 'm') {
				const id = rest.join(':');
				return reportedKeys.some((key) => {
					const burst = /^burst:(.*)\.\.(.*)$/.exec(key);
					return key === id || (burst && burst[1] <= id && id <= burst[2]);
				});
			}
			if (kind === 'c') return reportedKeys.includes(`conversation:${rest.join(':')}`);
			if (kind === 'reactionAdded' || kind === 'reactionRemoved') {
				const [id, reaction, reactor] = rest;
				const sign = kind === 'reactionAdded' ? '+' : '-';
				return reportedKeys.includes(`reaction${sign}:${id}:${reaction}:${reactor}`);
			}
			return false;
		};
		const settledIn = (list) =>
			list.some(
				({ execution }) => execution.status === 'success' || execution.status === 'nodeError',
			);
		const expectSettled = (identity) => {
			totals.expected += 1;
			if (settledIn(seen.get(identity) ?? [])) totals.delivered += 1;
			else if (reported(identity)) totals.reported += 1;
			else {
				totals.lost += 1;
				if (process.env.DEBUG_PROPERTY) console.log('lost', identity);
			}
		};
		for (const { id, from } of createdAfterStart.messages)
			if (from !== 'ct_me') expectSettled(`m:${id}`);
		for (const id of createdAfterStart.conversations) expectSettled(`c:${id}`);
		for (const [pair, state] of pairs) {
			const [id, reaction, reactor] = pair.split('\n');
			if (reactor === 'ct_me') continue;
			const added = `reactionAdded:${id}:${reaction}:${reactor}`;
			const removed = `reactionRemoved:${id}:${reaction}:${reactor}`;
			if (state === 'added') expectSettled(added);
			else if (seen.has(added) || seen.has(removed)) {
				// Seen added and removed, or neither (both between two checks): never one alone.
				expectSettled(added);
				expectSettled(removed);
			}
		}
		for (const message of messages) {
			if (message.from === 'ct_me' || message.text === message.original) continue;
			// The message's last text reached a workflow, in an edit or (a message sent and edited before its first check) as new.
			const asEdit = [...seen.entries()].some(
				([identity, list]) => identity === `e:${message.id}:${message.text}` && settledIn(list),
			);
			const asNew = (seen.get(`m:${message.id}`) ?? []).some(({ json }) =>
				(json.messages ?? [json.message]).some(
					(m) => m.id === message.id && m.message === message.text,
				),
			);
			totals.expected += 1;
			const editReported = reportedKeys.some((key) => key.startsWith(`edited:${message.id}@`));
			if (asEdit || asNew || messages.indexOf(message) < 2) totals.delivered += 1;
			else if (editReported || reported(`m:${message.id}`)) totals.reported += 1;
			else totals.lost += 1;
		}
		// Each change's first delivery is unmarked, once; edits of a message chain before to after.
		const firsts = new Set();
		const lastText = new Map();
		for (const json of unmarked) {
			for (const identity of identities(json)) {
				if (firsts.has(identity)) totals.unmarkedDuplicates += 1;
				firsts.add(identity);
			}
			if (json.event === 'messageEdited') {
				const previous = lastText.get(json.message.id);
				if (previous !== undefined && previous !== json.before.message)
					totals.brokenEditChains += 1;
				lastText.set(json.message.id, json.after.message);
			}
		}
		for (const list of seen.values())
			totals.redeliveries += list.filter(({ json }) => json.redelivery).length;
		totals.schedules += 1;
		if (process.env.DEBUG_PROPERTY && totals.lost > lostBefore) throw new Error('lost');
	} finally {
		if (host?.process) await host.stop();
		await sandbox.stop();
	}
}

async function checkEventsProperty({ runs, seed = 20261125 }) {
	const totals = newTotals();
	await fc.assert(
		fc.asyncProperty(scheduleArbitrary, (schedule) => runSchedule(schedule, totals)),
		{ numRuns: runs, seed },
	);
	return totals;
}

function describeEventTotals(totals) {
	return (
		`trigger events property: ${totals.schedules} schedules, ${totals.checks} checks (${totals.failedChecks} failed, ${totals.writtenByFailedChecks} of them wrote the state), ${totals.restarts} restarts, ` +
		`${totals.crashes} crashes, ${totals.expected} changes expected, ${totals.delivered} delivered, ${totals.reported} reported after their last attempt, ${totals.lost} lost, ` +
		`${totals.redeliveries} marked redeliveries, ${totals.unmarkedDuplicates} unmarked duplicates, ` +
		`${totals.ownDelivered} own actions delivered, ${totals.groupedBursts} bursts of 2 or more grouped, ${totals.badBursts} mixed, ${totals.brokenEditChains} broken edit chains, ` +
		`largest state ${totals.maxStateBytes} bytes`
	);
}

module.exports = { checkEventsProperty, describeEventTotals };
