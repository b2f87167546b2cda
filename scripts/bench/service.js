'use strict';
/** The sandbox service the benchmark runs against: its latency and rate limit, its data, and its state between runs. */

const LATENCY_MS = 20;
/** Plus 0 to 10 ms at random per request, as on a real network (what reorders parallel sends). */
const JITTER_MS = 10;
/** What a request waits on average: the floor for requests that go one (or a few) at a time. */
const MEAN_LATENCY_MS = LATENCY_MS + JITTER_MS / 2;
const RATE = { perSecond: 100, burst: 10 };
const TOKEN = 'bench-token';

const pad = (n) => String(n).padStart(8, '0');
/** The ids of the messages to Get, as `seed` creates them. */
const messageIds = (sizes) => Array.from({ length: sizes.get }, (_, i) => `msg_${pad(i + 1)}`);

function seed(store, sizes) {
	store.addContact({ id: 'ct_ann' });
	const getConversation = store.createConversation({ contact_id: 'ct_ann' }).id; // conv_00000001: the messages to Get
	const sendConversation = store.createConversation({ contact_id: 'ct_ann' }).id; // conv_00000002: Send target
	const manyConversation = store.createConversation({ contact_id: 'ct_ann' }).id; // conv_00000003: Get Many
	for (let i = 0; i < sizes.get; i++)
		store.sendMessage('ct_ann', { conversation_id: getConversation, message: `get ${i}` });
	for (let i = 0; i < sizes.many; i++)
		store.sendMessage('ct_ann', { conversation_id: manyConversation, message: `many ${i}` });
	const muteIds = [];
	for (let i = 0; i < sizes.mute; i++)
		muteIds.push(store.createConversation({ contact_id: 'ct_ann' }).id);
	return { sendConversation, manyConversation, muteIds };
}

/** Before each run: the service back to the same state (nothing sent, nothing muted). */
function reset(store, service) {
	for (const [id, m] of store.messages)
		if (m.conversation_id === service.sendConversation) store.messages.delete(id);
	for (const id of service.muteIds)
		store.conversations.set(id, { ...store.conversation(id), is_muted: false });
}

/** What a Send run stored: how many, how many out of item order, how many twice. */
function sendOrder(store, service) {
	const stored = [...store.messages.values()]
		.filter((m) => m.conversation_id === service.sendConversation)
		.map((m) => Number(m.message.slice(1)));
	let outOfOrder = 0;
	let highest = -1;
	for (const n of stored) {
		if (n < highest) outOfOrder += 1;
		else highest = n;
	}
	return { stored: stored.length, outOfOrder, duplicates: stored.length - new Set(stored).size };
}

module.exports = {
	LATENCY_MS,
	JITTER_MS,
	MEAN_LATENCY_MS,
	RATE,
	TOKEN,
	messageIds,
	seed,
	reset,
	sendOrder,
};
