'use strict';
/**
 * The trigger against services the sandbox does not act out (test/trigger/variantService.js): numeric
 * ids, UUIDs, a list sorted by insertion with late messages at its top. Both versions, through the same
 * harness as trigger.test.js.
 */
const { VERSIONS, triggerVersion } = require('../harness/triggerVersions');
const { sentBy } = require('../../dist/nodes/MessagingTrigger/ownContact');
const { startVariantService } = require('./variantService');
const { TRIGGER_FAKE_TIMERS } = require('../harness/n8n');

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
			jest.useFakeTimers(TRIGGER_FAKE_TIMERS);
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

	describe('a newest-first service sorted by insertion: a late message at the top', () => {
		const newestFirstByInsertion = { order: 'newest_first', sortBy: 'insertion' };
		/** History spaced 10 s apart, ending 100 s ago, `count` messages. */
		const history = (count) => {
			service.addConversation();
			const end = Date.now() - 100_000;
			for (let i = 0; i < count; i++)
				service.addMessage({ text: `h${i}`, createdMs: end - (count - 1 - i) * 10_000 });
			return end;
		};
		const requestsOf = async (check) => {
			const before = service.messageRequests().length;
			const result = await check();
			return { result, requests: service.messageRequests().length - before };
		};

		test('at activation, over a history deeper than one check: every later message is delivered, a few requests a check', async () => {
			// 5 a page: 200 pages (one check's cap) hold 1000 messages; the history is deeper.
			const trigger = await start(newestFirstByInsertion, {
				parameters: { options: { pageSize: 5, skipOwnMessages: false } },
			});
			const end = history(1100);
			service.addMessage({ text: 'late (bridged)', createdMs: end - 15_000 });
			const first = await requestsOf(() => trigger.check());
			expect(first.result).toBeNull();
			expect(trigger.state().order).toBe('newest_first'); // before: oldest_first, for good
			expect(first.requests).toBeLessThanOrEqual(20); // before: 200
			for (let k = 0; k < 3; k++) {
				service.addMessage({ text: `new ${k}`, createdMs: Date.now() - 50_000 + k * 1000 });
				const { result, requests } = await requestsOf(() => trigger.check());
				// Before: nothing, ever (the cursor went to the bottom of the list and each check read an empty page).
				expect(texts(result)).toEqual([`new ${k}`]);
				expect(requests).toBeLessThanOrEqual(20);
			}
			expect(trigger.state().cursor).toBeUndefined();
		});

		test('after activation: delivered once, and the early stop stays on (a check does not read the whole history)', async () => {
			const trigger = await start(newestFirstByInsertion, {
				parameters: { options: { pageSize: 5, skipOwnMessages: false } },
			});
			history(1100);
			expect(await trigger.check()).toBeNull();
			const delivered = [];
			let requests = 0;
			for (let k = 0; k < 6; k++) {
				const now = Date.now();
				if (k < 3) service.addMessage({ text: `new ${k}`, createdMs: now - 3000 + k });
				if (k === 0) service.addMessage({ text: 'late', createdMs: now - 20_000 });
				const check = await requestsOf(() => trigger.check());
				delivered.push(...texts(check.result));
				requests += check.requests;
			}
			expect(delivered).toEqual(['late', 'new 0', 'new 1', 'new 2']);
			// Before: the late message's pair turned the early stop off, and each check read 200 pages.
			expect(requests).toBeLessThanOrEqual(6 * 20);
		});

		test.each([['created_at'], ['insertion']])(
			'the early stop still finds a late message inside the look-back window (service sorted by %s)',
			async (sortBy) => {
				const trigger = await start(
					{ order: 'newest_first', sortBy },
					{ parameters: { options: { pageSize: 2, lookBackSeconds: 60, skipOwnMessages: false } } },
				);
				const end = history(40);
				expect(await trigger.check()).toBeNull();
				service.addMessage({ text: 'newest', createdMs: end + 5000 });
				expect(texts(await trigger.check())).toEqual(['newest']);
				service.addMessage({ text: 'late by 40 s', createdMs: end - 35_000 });
				service.addMessage({ text: 'late by 90 s', createdMs: end - 85_000 });
				service.addMessage({ text: 'next', createdMs: end + 6000 });
				// Inside the window: delivered; older than the window: not (as the README says).
				expect(texts(await trigger.check())).toEqual(['late by 40 s', 'next']);
				expect(await trigger.check()).toBeNull();
			},
		);

		test('an order a first listing of two messages got wrong is put right once listings clearly show the other', async () => {
			const trigger = await start(newestFirstByInsertion, {
				parameters: { options: { skipOwnMessages: false } },
			});
			service.addConversation();
			const start0 = Date.now() - 100_000;
			service.addMessage({ text: 'h', createdMs: start0 });
			service.addMessage({ text: 'late', createdMs: start0 - 15_000 });
			expect(await trigger.check()).toBeNull();
			expect(trigger.state().order).toBe('oldest_first'); // two messages cannot tell
			const delivered = [];
			for (let k = 0; k < 6; k++) {
				service.addMessage({ text: `new ${k}`, createdMs: start0 + (k + 1) * 1000 });
				delivered.push(...texts(await trigger.check()));
			}
			expect(delivered).toEqual(Array.from({ length: 6 }, (_, k) => `new ${k}`));
			expect(trigger.state().order).toBe('newest_first'); // before: oldest_first for good
			expect(trigger.state().cursor).toBeUndefined();
		});
	});

	describe('an oldest-first service that answers an unknown cursor with an empty page', () => {
		const setUp = async () => {
			const trigger = await start(
				{ order: 'oldest_first', unknownCursor: 'empty' },
				{ parameters: { options: { skipOwnMessages: false } } },
			);
			service.addConversation();
			const end = Date.now() - 600_000;
			for (let i = 0; i < 30; i++)
				service.addMessage({ text: `h${i}`, createdMs: end - (29 - i) * 10_000 });
			expect(await trigger.check()).toBeNull();
			return trigger;
		};
		const remove = (id) =>
			service.messages.splice(
				service.messages.findIndex((m) => String(m.id) === id),
				1,
			);

		test('the message the cursor names is deleted: later messages are still delivered', async () => {
			const trigger = await setUp();
			remove(trigger.state().cursor); // e.g. a moderation workflow deleted it
			const delivered = [];
			for (let k = 0; k < 3; k++) {
				service.addMessage({ text: `new ${k}`, createdMs: Date.now() - 3000 + k });
				delivered.push(...texts(await trigger.check()));
			}
			// Before: [] for ever (each check read an empty page after the deleted cursor).
			expect(delivered).toEqual(['new 0', 'new 1', 'new 2']);
		});

		test('the messages after the cursor are deleted in a quiet period (sent and unsent): the cursor still exists, so no read from the top', async () => {
			const trigger = await setUp();
			const cursor = trigger.state().cursor;
			// Every message after the cursor is unsent: the listing from it comes back empty.
			while (String(service.messages.at(-1).id) !== cursor)
				remove(String(service.messages.at(-1).id));
			const before = service.requests.length;
			expect(await trigger.check()).toBeNull();
			// Before: the cursor was taken for deleted and each check read the whole history from the top.
			expect(service.requests.slice(before).map((r) => r.path)).toEqual([
				'/v1/messages',
				`/v1/messages/${cursor}`,
			]);
			expect(trigger.state().cursor).toBe(cursor);
			service.addMessage({ text: 'new', createdMs: Date.now() - 1000 });
			expect(texts(await trigger.check())).toEqual(['new']);
		});
	});

	describe('Skip My Own Messages with numeric ids: an auto-reply is not emitted', () => {
		test.each(
			/** @type {Array<[string, { idStyle?: string, numericContacts?: boolean }, string]>} */ ([
				['numeric message and conversation ids, own contact learned', { idStyle: 'numeric' }, ''],
				['numeric contact ids, own contact learned', { numericContacts: true }, ''],
				['numeric contact ids, Your Contact ID "1"', { numericContacts: true }, '1'],
			]),
		)('%s', async (_label, options, ownContactId) => {
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
