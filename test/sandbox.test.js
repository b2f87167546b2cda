'use strict';
/** The sandbox is the tests' stand-in for the vendor's service: it must follow the spec, so it is tested too. */
const { request } = require('undici');
const { startSandbox, TOKEN } = require('./harness/sandbox');

let sandbox;
afterEach(() => sandbox?.stop());

/**
 * @param {string} method
 * @param {string} path
 * @param {{ body?: string | object, token?: string, json?: boolean }} [options]
 */
async function call(method, path, { body, token = TOKEN, json } = {}) {
	const headers = token ? { authorization: `Bearer ${token}` } : {};
	if (body !== undefined)
		headers['content-type'] = json ? 'application/json' : 'application/x-www-form-urlencoded';
	const response = await request(`${sandbox.url}${path}`, {
		method,
		headers,
		body: json ? JSON.stringify(body) : body,
	});
	const text = await response.body.text();
	return {
		status: response.statusCode,
		body: text ? JSON.parse(text) : undefined,
		headers: response.headers,
	};
}

describe('sandbox service', () => {
	beforeEach(async () => {
		({ sandbox } = await startSandbox({ seed: 'none' }));
		sandbox.store.addContact({ id: 'ct_ann' });
		sandbox.store.addGroup({ id: 'grp_1' });
	});

	test('bearer token required: 401 with a JSON error', async () => {
		expect(await call('GET', '/v1/messages', { token: null })).toMatchObject({
			status: 401,
			body: { error: { type: 'unauthorized', message: 'Missing bearer token' } },
		});
		expect((await call('GET', '/v1/messages', { token: 'nope' })).body.error.message).toBe(
			'Invalid access token',
		);
	});

	test('spec defaults on create and send; list shape; delete cascades', async () => {
		const conversation = (await call('POST', '/v1/conversations', { body: 'contact_id=ct_ann' }))
			.body;
		expect(conversation).toMatchObject({
			contact_id: 'ct_ann',
			group_id: null,
			is_pinned: false,
			is_muted: false,
			pinned_message_id: null,
			archived_at: null,
			last_active_at: null,
			last_opened_at: null,
		});
		const message = (
			await call('POST', '/v1/messages', { body: `conversation_id=${conversation.id}&message=hi` })
		).body;
		expect(message).toMatchObject({
			read_at: null,
			updated_at: null,
			reactions: [],
			attachments: [],
			contact: { id: 'ct_me', username: 'me' },
		});
		expect((await call('GET', '/v1/messages')).body).toEqual({ has_more: false, data: [message] });
		expect((await call('DELETE', `/v1/conversations/${conversation.id}`)).body).toEqual({
			id: conversation.id,
			deleted: true,
		});
		expect((await call('GET', `/v1/messages/${message.id}`)).status).toBe(404);
	});

	test('a group conversation; contact or group required', async () => {
		expect(
			(await call('POST', '/v1/conversations', { body: 'group_id=grp_1' })).body,
		).toMatchObject({ group_id: 'grp_1', contact_id: null });
		expect(await call('POST', '/v1/conversations', { body: '' })).toMatchObject({
			status: 400,
			body: { error: { message: 'Either contact_id or group_id is required' } },
		});
	});

	test('pages: 10 by default, limit up to the maximum, has_more, starting_after, filters', async () => {
		for (let i = 0; i < 25; i++)
			sandbox.store.createConversation({ contact_id: 'ct_ann', created_at: i });
		sandbox.store.updateConversation('conv_00000003', { is_muted: 'true' });
		const first = (await call('GET', '/v1/conversations')).body;
		expect(first.data).toHaveLength(10);
		expect(first.has_more).toBe(true);
		expect(first.data[0].id).toBe('conv_00000025');
		const next = (
			await call('GET', `/v1/conversations?limit=500&starting_after=${first.data[9].id}`)
		).body;
		expect(next.data).toHaveLength(15);
		expect(next.has_more).toBe(false);
		expect((await call('GET', '/v1/conversations?muted=true')).body.data.map((c) => c.id)).toEqual([
			'conv_00000003',
		]);
		expect((await call('GET', '/v1/conversations?limit=0')).status).toBe(400);
	});

	test('reactions in the documented form, names with brackets included; JSON bodies too', async () => {
		sandbox.store.createConversation({ contact_id: 'ct_ann' });
		sandbox.store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: 'x' });
		let updated = (
			await call('PUT', '/v1/messages/msg_00000001', {
				body: 'reactions[a%5Bb%5D%26c][]=z%C3%B6e&reactions[like][]=ann&reactions[like][]=bob',
			})
		).body;
		expect(updated.reactions).toEqual([{ 'a[b]&c': ['zöe'] }, { like: ['ann', 'bob'] }]);
		updated = (
			await call('PUT', '/v1/messages/msg_00000001', {
				body: { reactions: { love: ['cy'] } },
				json: true,
			})
		).body;
		expect(updated.reactions).toEqual([{ love: ['cy'] }]);
		updated = (await call('PUT', '/v1/messages/msg_00000001', { body: 'reactions=' })).body;
		expect(updated.reactions).toEqual([]);
	});

	test('faults: scripted 429 with Retry-After, rate limit, drops', async () => {
		sandbox.failNext({ status: 429, retryAfter: 2 });
		const limited = await call('GET', '/v1/messages');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('2');
		sandbox.failNext({ drop: 'before' });
		await expect(call('GET', '/v1/messages')).rejects.toThrow();
		expect((await call('GET', '/v1/messages')).status).toBe(200);
	});

	test('a token bucket answers 429 beyond its rate', async () => {
		await sandbox.stop();
		({ sandbox } = await startSandbox({ seed: 'none', rateLimit: { perSecond: 5, burst: 5 } }));
		const statuses = [];
		for (let i = 0; i < 8; i++) statuses.push((await call('GET', '/v1/messages')).status);
		expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
	});
});

test('the demo seed: contacts, a group, pinned, muted, archived and stale conversations, reactions', async () => {
	({ sandbox } = await startSandbox({ seed: 'demo' }));
	const conversations = sandbox.store.listConversations({});
	expect(conversations.some((c) => c.is_pinned)).toBe(true);
	expect(conversations.some((c) => c.is_muted)).toBe(true);
	expect(conversations.some((c) => c.archived_at !== null)).toBe(true);
	expect(conversations.some((c) => c.group_id !== null && c.pinned_message_id !== null)).toBe(true);
	expect(
		[...sandbox.store.messages.values()].some((m) => Object.keys(m.reactions).length > 0),
	).toBe(true);
});
