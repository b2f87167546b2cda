'use strict';
/** The sandbox quirk suites' setting: a sandbox with three old messages, raw calls to it, and a wait for what it saw. */
const { request } = require('undici');
const { startSandbox, TOKEN } = require('./sandbox');

/** A sandbox (its `options` added) with Ann's conversation holding m0, m1 and m2. */
async function startWithHistory(options = {}) {
	const { sandbox } = await startSandbox({ seed: 'none', ...options });
	sandbox.store.addContact({ id: 'ct_ann' });
	sandbox.store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	for (let i = 0; i < 3; i++)
		sandbox.store.sendMessage(
			'ct_ann',
			{ conversation_id: 'conv_00000001', message: `m${i}` },
			{ createdAt: 1000 + i },
		);
	return sandbox;
}

/** A raw authenticated call, by default to the sandbox `current()` gives; the answer's status, headers, text and JSON. */
const callOn =
	(current) =>
	/**
	 * @param {string} method
	 * @param {string} path
	 * @param {{ body?: string, headers?: Record<string, string>, base?: string, signal?: AbortSignal }} [options]
	 */
	async (method, path, { body, headers = {}, base = current().url, signal } = {}) => {
		const all = { authorization: `Bearer ${TOKEN}`, ...headers };
		if (body !== undefined) all['content-type'] = 'application/x-www-form-urlencoded';
		const response = await request(`${base}${path}`, { method, headers: all, body, signal });
		const text = await response.body.text();
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		return { status: response.statusCode, headers: response.headers, text, body: json };
	};

/** Waits, a turn of the event loop at a time, for what the server has to observe (a socket event). */
async function until(condition) {
	for (let i = 0; i < 2000 && !condition(); i++)
		await new Promise((resolve) => setTimeout(resolve, 1));
	expect(condition()).toBe(true);
}

module.exports = { startWithHistory, callOn, until };
