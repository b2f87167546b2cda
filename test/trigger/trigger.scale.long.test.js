'use strict';
/** The stored state after 100,000 messages, both versions (the default suite runs 10,000). Run with `npm run test:long`. */
const { startSandbox } = require('../harness/sandbox');
const { VERSIONS, triggerVersion } = require('../harness/triggerVersions');
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');

test.each(VERSIONS)(
	'%s: the stored state stays small after 100,000 messages',
	async (name, version) => {
		if (version === triggerVersion) {
			jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
		}
		let now = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
		const { sandbox, credentials } = await startSandbox({
			seed: 'none',
			clock: () => now,
			recordRequests: false,
		});
		const trigger = version({ credentials, parameters: { options: { pageSize: 100 } } });
		try {
			sandbox.store.addContact({ id: 'ct_ann' });
			sandbox.store.createConversation({ contact_id: 'ct_ann' });
			await trigger.check();
			let delivered = 0;
			let largest = 0;
			for (let round = 0; round < 100; round++) {
				for (let i = 0; i < 1000; i++) {
					if (i % 100 === 0) now += 1000;
					sandbox.store.sendMessage('ct_ann', {
						conversation_id: 'conv_00000001',
						message: `x${round}-${i}`,
					});
				}
				delivered += (await trigger.check())?.[0].length ?? 0;
				largest = Math.max(largest, JSON.stringify(trigger.state()).length);
			}
			for (let more = 0; more < 50 && delivered < 100_000; more++)
				delivered += (await trigger.check())?.[0].length ?? 0;
			expect(delivered).toBe(100_000);
			console.log(
				`trigger ${name}: state after 100,000 messages ${JSON.stringify(trigger.state()).length} bytes (largest after any check: ${largest} bytes)`,
			);
			expect(largest).toBeLessThan(25_000);
		} finally {
			await trigger.stop();
			jest.useRealTimers();
			await sandbox.stop();
		}
	},
	600_000,
);
