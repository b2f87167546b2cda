'use strict';
/**
 * Every guarantee of the Messaging Trigger, asserted for both versions: version 1 (polling, through
 * n8n-core's PollContext) and version 2 (trigger(), through n8n-core's TriggerContext in a simulated
 * n8n; see test/harness/triggerVersions.js). Version 2's own behaviour (schedule, settlement, restarts)
 * is in triggerV2.test.js.
 */
const { runMessagingNode, TRIGGER_FAKE_TIMERS } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');
const { VERSIONS, triggerVersion } = require('../harness/triggerVersions');

let sandbox;
let credentials;
let now; // the service's clock, in milliseconds
let triggers = [];

async function setup(options = {}) {
	// An hour behind the local clock, so that moving the service's clock on never takes it into the future.
	now = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
	({ sandbox, credentials } = await startSandbox({ seed: 'none', clock: () => now, ...options }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.addContact({ id: 'ct_bob', username: 'bob' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.createConversation({ contact_id: 'ct_bob' }); // conv_00000002
}

const send = (text, { from = 'ct_ann', conversation = 'conv_00000001', createdAt } = {}) =>
	sandbox.store.sendMessage(from, { conversation_id: conversation, message: text }, { createdAt });
const texts = (result) => (result ? result[0].map((item) => item.json.message) : []);
const tick = (seconds = 1) => {
	now += seconds * 1000;
};
const messageRequests = () =>
	sandbox.requests.filter((r) => r.path === '/v1/messages').map((r) => r.query);

describe.each(VERSIONS)('Messaging Trigger %s', (_name, version) => {
	const createTrigger = (options) => {
		const trigger = version(options);
		triggers.push(trigger);
		return trigger;
	};

	beforeEach(async () => {
		if (version === triggerVersion) {
			jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
		}
	});
	afterEach(async () => {
		for (const trigger of triggers) await trigger.stop();
		triggers = [];
		jest.useRealTimers();
		await sandbox.stop();
	});

	describe('seconds', () => {
		beforeEach(() => setup());

		test('the first check records where the stream stands and emits nothing; then each new message once, oldest first', async () => {
			send('old 1');
			send('old 2');
			const trigger = createTrigger({ credentials });
			expect(await trigger.check()).toBeNull();
			expect(trigger.state()).toMatchObject({
				version: 1,
				recent: [
					['msg_00000001', expect.any(Number)],
					['msg_00000002', expect.any(Number)],
				],
			});

			tick();
			send('new 1');
			send('new 2');
			tick();
			send('new 3', { from: 'ct_bob', conversation: 'conv_00000002' });
			const result = await trigger.check();
			expect(texts(result)).toEqual(['new 1', 'new 2', 'new 3']);
			expect(result[0].every((item) => item.json.contact.id !== undefined)).toBe(true);
			expect(await trigger.check()).toBeNull();
		});

		test('a check with nothing new sends exactly one request', async () => {
			for (let i = 0; i < 30; i++) send(`m${i}`);
			const trigger = createTrigger({ credentials });
			await trigger.check();
			sandbox.clearRequests();
			expect(await trigger.check()).toBeNull();
			expect(sandbox.requests).toHaveLength(1);
			expect(sandbox.requests[0].query).toBe('?limit=100');
		});

		test('Emit Existing Messages on Activation emits what exists, oldest first', async () => {
			send('a');
			tick();
			send('b');
			const trigger = createTrigger({
				credentials,
				parameters: { options: { emitExisting: true } },
			});
			expect(texts(await trigger.check())).toEqual(['a', 'b']);
			expect(await trigger.check()).toBeNull();
		});

		test('only the chosen conversation', async () => {
			const trigger = createTrigger({
				credentials,
				parameters: { conversationId: byId('conv_00000002') },
			});
			await trigger.check();
			send('not this one');
			send('this one', { from: 'ct_bob', conversation: 'conv_00000002' });
			expect(texts(await trigger.check())).toEqual(['this one']);
			expect(messageRequests().at(-1)).toBe('?conversation_id=conv_00000002&limit=100');
		});

		test.each([
			[
				'401',
				() => (credentials.accessToken = 'bad'),
				'Authentication failed: check the access token of the Messaging API credential',
			],
			[
				'500',
				() => sandbox.failNext({ status: 500 }),
				'The Messaging service failed (500): Internal server error',
			],
			[
				'a body that is not JSON',
				() => sandbox.failNext({ status: 200, html: 'oops' }),
				'The Messaging service answered with something that is not JSON',
			],
			[
				'a body without data',
				() => sandbox.failNext({ status: 200, html: '{"has_more":false}' }),
				'without a "data" array',
			],
		])(
			'a check that fails (%s) reports a readable error and leaves the state exactly as it was',
			async (_fault, breakIt, message) => {
				send('before');
				const trigger = createTrigger({ credentials });
				await trigger.check();
				tick();
				send('during the outage 1');
				send('during the outage 2');
				const before = JSON.stringify(trigger.state());
				const token = credentials.accessToken;
				breakIt();
				if (message.includes('(500)')) sandbox.failNext(...Array(5).fill({ status: 500 })); // more than the transport's retries
				await expect(trigger.check()).rejects.toThrow(message);
				expect(JSON.stringify(trigger.state())).toBe(before);
				credentials.accessToken = token;
				sandbox.clearFaults();
				expect(texts(await trigger.check())).toEqual([
					'during the outage 1',
					'during the outage 2',
				]);
			},
		);

		test('many messages sharing one second: none lost, none repeated, across checks', async () => {
			const trigger = createTrigger({ credentials });
			await trigger.check();
			const delivered = [];
			for (let round = 0; round < 4; round++) {
				for (let i = 0; i < 30; i++) send(`s${round}-${i}`); // the clock does not move: one created_at
				delivered.push(...texts(await trigger.check()));
			}
			expect(delivered).toHaveLength(120);
			expect(new Set(delivered).size).toBe(120);
			expect(await trigger.check()).toBeNull();
		});

		test('Look-Back Window 0: messages sharing the newest second are still each delivered once', async () => {
			const trigger = createTrigger({
				credentials,
				parameters: { options: { lookBackSeconds: 0 } },
			});
			send('at activation');
			await trigger.check();
			send('same second as the activation');
			expect(texts(await trigger.check())).toEqual(['same second as the activation']);
			send('same second again');
			expect(texts(await trigger.check())).toEqual(['same second again']);
			tick();
			send('next second');
			expect(texts(await trigger.check())).toEqual(['next second']);
			expect(await trigger.check()).toBeNull();
		});

		test('more than a page between checks: pages back with the cursor, delivers all in order', async () => {
			const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 20 } } });
			await trigger.check();
			for (let i = 0; i < 95; i++) {
				if (i % 7 === 0) tick();
				send(`b${i}`);
			}
			sandbox.clearRequests();
			const result = await trigger.check();
			expect(texts(result)).toEqual(Array.from({ length: 95 }, (_, i) => `b${i}`));
			expect(messageRequests()).toEqual([
				'?limit=20',
				'?limit=20&starting_after=msg_00000076',
				'?limit=20&starting_after=msg_00000056',
				'?limit=20&starting_after=msg_00000036',
				'?limit=20&starting_after=msg_00000016',
			]);
		});

		test("a burst beyond one check's page cap continues at the next checks: nothing lost, oldest first, no gap warning", async () => {
			const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 1 } } });
			await trigger.check();
			for (let i = 0; i < 450; i++) {
				if (i % 50 === 0) tick();
				send(`burst ${i}`);
			}
			const delivered = [];
			const warnings = [];
			for (let checks = 0; checks < 8 && delivered.length < 450; checks++) {
				const result = await trigger.check();
				delivered.push(...texts(result));
				warnings.push(...(result?.[0] ?? []).filter((item) => item.json.warning));
			}
			expect(delivered).toEqual(Array.from({ length: 450 }, (_, i) => `burst ${i}`));
			expect(warnings).toEqual([]);
			expect(await trigger.check()).toBeNull();
		});

		test('a service that ignores the cursor: delivers what it can and marks the possible gap on the items', async () => {
			const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 10 } } });
			await trigger.check();
			tick();
			for (let i = 0; i < 25; i++) send(`c${i}`);
			sandbox.set({ ignoreCursor: true });
			const result = await trigger.check();
			expect(texts(result)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i + 15}`));
			expect(result[0][0].json.warning).toMatch(/^Possible gap: the service did not page further/);
		});

		test('an oldest-first service that ignores the cursor: each check fails saying so, not silently delivering nothing', async () => {
			sandbox.set({ order: 'oldest_first' });
			const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 10 } } });
			for (let i = 0; i < 25; i++) {
				send(`old ${i}`);
				tick();
			}
			await trigger.check();
			send('new');
			sandbox.set({ ignoreCursor: true });
			// Before: null every check (the same oldest page each time), and no word of it.
			await expect(trigger.check()).rejects.toThrow(
				'The Messaging service ignored the starting_after cursor: it lists oldest first',
			);
			sandbox.set({ ignoreCursor: false });
			expect(texts(await trigger.check())).toEqual(['new']);
		});

		test('a late arrival inside the look-back window is delivered once; one older than the window is not', async () => {
			const trigger = createTrigger({
				credentials,
				parameters: { options: { lookBackSeconds: 60 } },
			});
			await trigger.check();
			send('newest');
			expect(texts(await trigger.check())).toEqual(['newest']);
			const newest = now / 1000;
			send('late by 30 s', { createdAt: newest - 30 });
			send('late by 90 s', { createdAt: newest - 90 });
			expect(texts(await trigger.check())).toEqual(['late by 30 s']);
			expect(await trigger.check()).toBeNull();
		});

		test('a message dated far in the future is delivered and does not freeze the trigger', async () => {
			const trigger = createTrigger({ credentials });
			await trigger.check();
			send('from the future', { createdAt: now / 1000 + 365 * 86400 });
			expect(texts(await trigger.check())).toEqual(['from the future']);
			tick();
			send('normal again');
			expect(texts(await trigger.check())).toEqual(['normal again']);
			expect(await trigger.check()).toBeNull();
		});

		test('created_at sent as a numeric string is read as a number (the message is not dropped)', async () => {
			const trigger = createTrigger({ credentials });
			await trigger.check();
			tick();
			const sent = send('string timestamp');
			sandbox.store.messages.get(sent.id).created_at = String(sent.created_at);
			const result = await trigger.check();
			expect(texts(result)).toEqual(['string timestamp']);
			expect(result[0][0].json.created_at).toBe(sent.created_at);
			expect(await trigger.check()).toBeNull();
		});

		test('a message whose created_at moves after delivery is not delivered again', async () => {
			const trigger = createTrigger({ credentials });
			await trigger.check();
			tick();
			const sent = send('re-dated later');
			expect(texts(await trigger.check())).toEqual(['re-dated later']);
			for (const shift of [3600, -30, 86400 * 30]) {
				tick(5);
				sandbox.store.messages.get(sent.id).created_at = now / 1000 + shift;
				expect(await trigger.check()).toBeNull();
			}
		});

		test('lists oldest first? still every message once, oldest first, and a check reads from the last known message on', async () => {
			sandbox.set({ order: 'oldest_first' });
			for (let i = 0; i < 15; i++) send(`o${i}`);
			const trigger = createTrigger({
				credentials,
				parameters: { options: { pageSize: 4, lookBackSeconds: 0 } },
			});
			await trigger.check();
			tick();
			for (let i = 0; i < 9; i++) send(`n${i}`);
			expect(texts(await trigger.check())).toEqual(Array.from({ length: 9 }, (_, i) => `n${i}`));
			sandbox.clearRequests();
			expect(await trigger.check()).toBeNull();
			// From the last settled message on: the history is not read again, only the newest second (it may still grow).
			expect(messageRequests()).toEqual([
				'?limit=4&starting_after=msg_00000015',
				'?limit=4&starting_after=msg_00000019',
				'?limit=4&starting_after=msg_00000023',
			]);
		});

		test("an oldest-first service with a history longer than one check's page cap: later checks cost what is new", async () => {
			now = Math.floor(Date.now() / 1000) * 1000 - 1000; // what existed is told from what is new by the local clock
			sandbox.set({ order: 'oldest_first' });
			for (let i = 0; i < 230; i++) send(`history ${i}`);
			const trigger = createTrigger({
				credentials,
				parameters: { options: { pageSize: 1, lookBackSeconds: 0 } },
			});
			expect(await trigger.check()).toBeNull(); // reads 200 pages of history and notes where it stopped
			tick();
			send('new after activation');
			const delivered = [];
			for (let i = 0; i < 3; i++) delivered.push(...texts(await trigger.check()));
			expect(delivered).toEqual(['new after activation']);
			sandbox.clearRequests();
			expect(await trigger.check()).toBeNull();
			expect(messageRequests().length).toBeLessThanOrEqual(2);
		});

		test('the same long oldest-first history on a service whose clock runs 5 minutes behind: the first new message is delivered', async () => {
			// Told by the host's clock, everything dated before the host's now existed at activation: a
			// message sent in the 5 minutes after it was never delivered. The service's Date header tells.
			now = Math.floor(Date.now() / 1000) * 1000 - 301_000; // the history: a second before the service's now
			sandbox.set({ order: 'oldest_first', clockSkewMs: -300_000 });
			for (let i = 0; i < 230; i++) send(`history ${i}`);
			const trigger = createTrigger({
				credentials,
				parameters: { options: { pageSize: 1, lookBackSeconds: 0 } },
			});
			expect(await trigger.check()).toBeNull();
			tick();
			send('new after activation');
			const delivered = [];
			for (let i = 0; i < 3; i++) delivered.push(...texts(await trigger.check()));
			expect(delivered).toEqual(['new after activation']);
		});

		test('a service whose clock runs 10 minutes ahead: its messages move the watermark (they are not in the future)', async () => {
			now = Math.floor(Date.now() / 1000) * 1000 + 600_000 - 5_000; // messages a few seconds old on its clock
			sandbox.set({ clockSkewMs: 600_000 });
			send('old');
			const trigger = createTrigger({
				credentials,
				parameters: { options: { lookBackSeconds: 0 } },
			});
			await trigger.check();
			tick();
			send('new');
			expect(texts(await trigger.check())).toEqual(['new']);
			// Dated after the host's clock, the newest message had been left out of the watermark.
			expect(trigger.state()).toMatchObject({ newest: now / 1000, settledThrough: now / 1000 - 1 });
		});

		test('the stored state stays small: bytes after 10,000 messages', async () => {
			const trigger = createTrigger({ credentials, parameters: { options: { pageSize: 100 } } });
			await trigger.check();
			let delivered = 0;
			let largest = 0;
			for (let round = 0; round < 10; round++) {
				for (let i = 0; i < 1000; i++) {
					if (i % 100 === 0) tick();
					send(`x${round}-${i}`);
				}
				delivered += texts(await trigger.check()).length;
				largest = Math.max(largest, JSON.stringify(trigger.state()).length);
			}
			for (let more = 0; more < 20 && delivered < 10_000; more++)
				delivered += texts(await trigger.check()).length;
			expect(delivered).toBe(10_000);
			expect(largest).toBeLessThan(25_000);
		});
	});

	describe('milliseconds', () => {
		beforeEach(() => setup({ unit: 'ms' }));

		test('same guarantees: same-millisecond bursts, late arrivals, ISO output', async () => {
			const trigger = createTrigger({
				credentials,
				parameters: { options: { isoTimestamps: true } },
			});
			send('before');
			await trigger.check();
			now += 5;
			for (let i = 0; i < 12; i++) send(`ms${i}`);
			const result = await trigger.check();
			expect(texts(result)).toEqual(Array.from({ length: 12 }, (_, i) => `ms${i}`));
			expect(result[0][0].json.created_at_iso).toBe(new Date(now).toISOString());
			send('late by 20 s', { createdAt: now - 20_000 });
			expect(texts(await trigger.check())).toEqual(['late by 20 s']);
			expect(trigger.state().settledThrough).toBe(now - 60_001);
			expect(trigger.state().unit).toBe('milliseconds');
		});

		test('the unit is never guessed from an empty page: a late message after an empty first check is not lost', async () => {
			const trigger = createTrigger({ credentials });
			expect(await trigger.check()).toBeNull(); // nothing listed: nothing to guess from, nothing guessed
			send('first');
			expect(texts(await trigger.check())).toEqual(['first']);
			expect(trigger.state().unit).toBe('milliseconds');
			send('late by 30 s', { createdAt: now - 30_000 });
			expect(texts(await trigger.check())).toEqual(['late by 30 s']);
		});
	});

	describe('loop safety: an auto-reply never answers itself', () => {
		beforeEach(() => setup());

		test('a Send made in reaction to an emitted message is not emitted again (own contact learned)', async () => {
			const trigger = createTrigger({ credentials });
			await trigger.check();
			tick();
			send('Can you help?');
			const incoming = await trigger.check();
			expect(texts(incoming)).toEqual(['Can you help?']);

			const reply = await runMessagingNode({
				parameters: {
					resource: 'message',
					operation: 'send',
					conversationId: '={{ $json.conversation_id }}',
					text: '=Re: {{ $json.message }}',
				},
				input: incoming[0].map((item) => item.json),
				credentials,
			});
			expect(reply.items[0].json.contact.id).toBe('ct_me');

			tick();
			expect(await trigger.check()).toBeNull();
			expect(trigger.state().ownContactId).toBe('ct_me');
			send('Thanks!');
			expect(texts(await trigger.check())).toEqual(['Thanks!']);
		});

		test('with "Your Contact ID" on the credential nothing is looked up; turned off, own messages are emitted', async () => {
			credentials.ownContactId = 'me';
			const trigger = createTrigger({ credentials });
			await trigger.check();
			send('mine', { from: 'ct_me' });
			send('theirs');
			sandbox.clearRequests();
			expect(texts(await trigger.check())).toEqual(['theirs']);
			expect(sandbox.requests).toHaveLength(1);

			const all = createTrigger({
				credentials,
				parameters: { options: { skipOwnMessages: false } },
			});
			await all.check();
			tick();
			send('mine again', { from: 'ct_me' });
			expect(texts(await all.check())).toEqual(['mine again']);
		});
	});
});

describe('Messaging Trigger v1: Fetch Test Event', () => {
	beforeEach(() => setup());
	afterEach(() => sandbox.stop());

	test('returns the newest message and neither reads nor writes the state', async () => {
		const { pollingVersion } = require('../harness/triggerVersions');
		const trigger = pollingVersion({ credentials });
		await expect(trigger.fetchTestEvent()).rejects.toThrow('There are no messages yet');
		send('first');
		tick();
		send('second');
		expect(texts(await trigger.fetchTestEvent())).toEqual(['second']);
		expect(trigger.state()).toBeUndefined();
	});
});

describe('Messaging Trigger v1: polls that overlap', () => {
	beforeEach(() => setup({ latencyMs: 30 }));
	afterEach(() => sandbox.stop());

	test('two polls at once (two Poll Times entries on the same minute, or a poll longer than its interval) deliver each message once', async () => {
		// n8n starts a poll on every tick of every entry without waiting for the one before.
		const { pollingVersion } = require('../harness/triggerVersions');
		const trigger = pollingVersion({ credentials });
		send('before');
		await trigger.check(); // the first poll only notes where the list stands
		tick();
		send('one');
		send('two');
		const [first, second] = await Promise.all([trigger.check(), trigger.check()]);
		// Before: both read the same state and each delivered ['one', 'two'].
		expect([...texts(first), ...texts(second)]).toEqual(['one', 'two']);
		tick();
		send('three');
		expect(texts(await trigger.check())).toEqual(['three']); // the lock was let go
	});
});
