'use strict';
/**
 * The trigger against services the sandbox does not act out (test/trigger/variantService.js): numeric
 * ids, UUIDs, a list sorted by insertion with late messages at its top. Both versions, through the same
 * harness as trigger.test.js.
 */
const { VERSIONS, triggerVersion } = require('../harness/triggerVersions');
const { sentBy } = require('../../dist/nodes/MessagingTrigger/ownContact');
const { startVariantService } = require('./variantService');

const texts = (result) => (result ? result[0].map((item) => item.json.message) : []);

let service;
let triggers = [];
afterEach(async () => {
	for (const trigger of triggers) await trigger.stop();
	triggers = [];
	jest.useRealTimers();
	if (service) await service.stop();
	service = undefined;
});

test('sentBy compares ids as text: a numeric contact id is the same contact as Your Contact ID "1"', () => {
	expect(sentBy({ id: 'm', created_at: 1, contact: { id: 1 } }, '1')).toBe(true);
	expect(sentBy({ id: 'm', created_at: 1, contact: 1 }, '1')).toBe(true);
	expect(sentBy({ id: 'm', created_at: 1, contact: { id: 2, username: 'me' } }, 'me')).toBe(true);
	expect(sentBy({ id: 'm', created_at: 1, contact: { id: 2 } }, '1')).toBe(false);
	expect(sentBy({ id: 'm', created_at: 1, contact: { id: null } }, 'null')).toBe(false);
});

describe.each(VERSIONS)('Messaging Trigger %s against service variants', (_name, version) => {
	const start = async (options, triggerOptions = {}) => {
		if (version === triggerVersion) {
			jest.useFakeTimers({
				doNotFake: [
					'nextTick',
					'setImmediate',
					'clearImmediate',
					'queueMicrotask',
					'performance',
					'hrtime',
				],
			});
		}
		service = await startVariantService(options);
		const trigger = version({
			credentials: { ...service.credentials, ...triggerOptions.credentials },
			parameters: triggerOptions.parameters ?? {},
		});
		triggers.push(trigger);
		return trigger;
	};

	test.each([
		['numeric ids, newest first', { idStyle: 'numeric' }],
		['numeric ids, oldest first', { idStyle: 'numeric', order: 'oldest_first' }],
		['UUIDs, newest first', { idStyle: 'uuid' }],
		['UUIDs, oldest first', { idStyle: 'uuid', order: 'oldest_first' }],
	])(
		'messages sharing a created_at are emitted in the order the service lists them (%s)',
		async (_label, options) => {
			const trigger = await start(options, { parameters: { options: { skipOwnMessages: false } } });
			service.addConversation();
			const second = Math.floor(Date.now() / 1000) * 1000 - 5000;
			for (let i = 0; i < 3; i++)
				service.addMessage({ text: `before ${i}`, createdMs: second - 10_000 });
			expect(await trigger.check()).toBeNull();
			for (let i = 1; i <= 12; i++) service.addMessage({ text: `part ${i}`, createdMs: second });
			// Before: numeric ids came as part 10, 11, 12, 1, 2, …, 9 (compared as text), UUIDs in any order.
			expect(texts(await trigger.check())).toEqual(
				Array.from({ length: 12 }, (_, i) => `part ${i + 1}`),
			);
			expect(await trigger.check()).toBeNull();
		},
	);

	describe('Skip My Own Messages with numeric ids: an auto-reply is not emitted', () => {
		test.each([
			['numeric message and conversation ids, own contact learned', { idStyle: 'numeric' }, ''],
			['numeric contact ids, own contact learned', { numericContacts: true }, ''],
			['numeric contact ids, Your Contact ID "1"', { numericContacts: true }, '1'],
		])('%s', async (_label, options, ownContactId) => {
			const trigger = await start(options, { credentials: { ownContactId } });
			const conversation = service.addConversation({ contactId: 'ct_ann' });
			const now = Date.now();
			service.addMessage({ conversation, text: 'old', createdMs: now - 9000 });
			expect(await trigger.check()).toBeNull();
			service.addMessage({ conversation, text: 'help please', createdMs: now - 6000 });
			expect(texts(await trigger.check())).toEqual(['help please']);
			// Before: the auto-reply came back as a new message, and the workflow answered it again.
			service.addMessage({
				conversation,
				from: 'ct_me',
				text: 'auto-reply',
				createdMs: now - 3000,
			});
			expect(await trigger.check()).toBeNull();
			if (!ownContactId)
				expect(trigger.state().ownContactId).toBe(options.numericContacts ? '1' : 'ct_me');
			service.addMessage({ conversation, text: 'thanks', createdMs: now - 1000 });
			expect(texts(await trigger.check())).toEqual(['thanks']);
		});
	});
});
