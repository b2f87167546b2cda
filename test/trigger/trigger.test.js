'use strict';
/**
 * Every guarantee of the Messaging Trigger, asserted for both versions: version 1 (polling, through
 * n8n-core's PollContext) and version 2 (trigger(), through n8n-core's TriggerContext in a simulated
 * n8n; see test/harness/triggerVersions.js). Here what a check delivers: each message once and in order,
 * conversations, paging, bursts, services that ignore the cursor. Time (late, future and moving dates,
 * clocks apart, milliseconds), loop safety and version 1's own paths are in triggerTime.test.js;
 * version 2's own behaviour (schedule, settlement, restarts) is in triggerV2.test.js.
 */
const { byId, TOKEN } = require('../harness/sandbox');
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
				() => sandbox.set({ tokens: {} }), // the token refused (an edit of it reaches version 2 within a minute)
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
				sandbox.set({ tokens: { [TOKEN]: 'ct_me' } });
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
	});
});
