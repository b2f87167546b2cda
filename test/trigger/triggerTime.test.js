'use strict';
/**
 * The Messaging Trigger's guarantees in time, for both versions (see trigger.test.js): late arrivals, future and
 * moving dates, oldest-first services, clocks apart from the host's, the stored state's size, milliseconds;
 * loop safety; then version 1's Fetch Test Event and its polls that overlap.
 */
const { runMessagingNode } = require('../harness/n8n');
const { VERSIONS } = require('../harness/triggerVersions');
const {
	startTriggerSandbox,
	triggerHelpers,
	texts,
	versionHooks,
} = require('../harness/triggerSuite');

let sandbox;
let credentials;
let now; // the service's clock, in milliseconds

async function setup(options = {}) {
	// An hour behind the local clock, so that moving the service's clock on never takes it into the future.
	now = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
	({ sandbox, credentials } = await startTriggerSandbox(() => now, options));
}
const { send, messageRequests } = triggerHelpers(() => sandbox);
const tick = (seconds = 1) => {
	now += seconds * 1000;
};

describe.each(VERSIONS)('Messaging Trigger %s', (_name, version) => {
	const createTrigger = versionHooks(version, () => sandbox.stop());

	describe('seconds', () => {
		beforeEach(() => setup());

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
