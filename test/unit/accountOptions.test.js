'use strict';
/**
 * What a check of a trigger on one conversation gets to read the account's pages with
 * (nodes/MessagingTrigger/v2/activation.ts accountOptions), in one process's shared pages and paces.
 */
const { accountOptions } = require('../../dist/nodes/MessagingTrigger/v2/activation');
const { sharedPaces } = require('../../dist/nodes/MessagingTrigger/v2/sharedPace');

/** @param {string} id a workflow's and node's id @returns {any} n8n's trigger context, as far as it is read */
const contextOf = (id) => ({
	getWorkflow: () => ({ id }),
	getNode: () => ({ id }),
	logger: { info: () => {} },
});
const credentials = { baseUrl: 'https://chat.example', accessToken: 'token-accountOptions' };
/** @param {string} conversationId @returns {any} */
const settingsOf = (conversationId) => ({
	intervalMs: 5_000,
	options: { conversationId, pageSize: 100, events: { events: ['newMessage'] } },
});

test("readNewer: the conversation's own listing after the account's pages is not served an answer asked for before them", async () => {
	const members = [{}, {}];
	try {
		const watcher = accountOptions(contextOf('watcher'), credentials, settingsOf('conv_1'), {
			member: members[0],
		});
		const reader = accountOptions(contextOf('reader'), credentials, settingsOf('conv_1'), {
			member: members[1],
			order: 'newest_first',
		});
		let requests = 0;
		/** @type {any} */
		const service = async () => ({ data: [{ id: `answer ${++requests}` }], hasMore: false });
		const ownListing = (/** @type {any} */ account) =>
			account.sharePages('messages', { conversation_id: 'conv_1' }, service);
		await ownListing(watcher)(undefined, 100);
		// A moment later: the watcher's fresh answer serves the reader...
		expect((await ownListing(reader)(undefined, 100)).data[0].id).toBe('answer 1');
		// ...but not once it read the account's pages.
		reader.accountPage.readNewer();
		expect((await ownListing(reader)(undefined, 100)).data[0].id).toBe('answer 2');
		expect(watcher.accountPage).toBeUndefined(); // no order known: it lists its own
	} finally {
		for (const member of members) sharedPaces.leave(member);
	}
});

test('triggers checking every hour share an answer for at most 10 s, not half an hour', async () => {
	jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
	const members = [{}, {}, {}];
	try {
		const hourly = { intervalMs: 3_600_000, options: settingsOf('').options };
		const [a, b, c] = members.map((member, i) =>
			accountOptions(contextOf(`hourly ${i}`), credentials, hourly, { member }),
		);
		let requests = 0;
		/** @type {any} */
		const service = async () => ({ data: [{ id: `answer ${++requests}` }], hasMore: false });
		const list = (/** @type {any} */ account) =>
			account.sharePages('messages', {}, service)(undefined, 100);
		await list(a);
		jest.advanceTimersByTime(10_000);
		expect((await list(b)).data[0].id).toBe('answer 1');
		jest.advanceTimersByTime(1);
		expect((await list(c)).data[0].id).toBe('answer 2');
	} finally {
		for (const member of members) sharedPaces.leave(member);
		jest.useRealTimers();
	}
});
