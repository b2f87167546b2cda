'use strict';
/**
 * sendAndWait.e2e.js's setting: the sandbox with its accounts and conversations, one Webhook workflow per
 * send-and-wait case (the step under test, then a Log of its output), and the waits and browser the checks use.
 */
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { createSandbox } = require('../../sandbox/server');
const wf = require('./workflows');

const TOKEN = 'e2e-sw-token-me';
const ANN_TOKEN = 'e2e-sw-token-ann';
const BOB_TOKEN = 'e2e-sw-token-bob';
const EVE_TOKEN = 'e2e-sw-token-eve';
const TYPE = 'n8n-nodes-messaging.messaging';
const credentials = { messagingApi: { id: wf.CREDENTIAL_ID, name: 'Messaging (sandbox)' } };
const byId = (value) => ({ __rl: true, mode: 'id', value });

const HOSTILE = '<script>document.title="pwned"</script><img src=x onerror="document.title=1">';

/** Debian's Chromium (scripts/ui/browser.js installs it on CI), scripts on, as a scanner or a person. */
async function withChromium(use) {
	const { chromium } = require('playwright-core');
	const browser = await chromium.launch({
		executablePath: '/usr/bin/chromium',
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
	});
	try {
		return await use(await browser.newPage());
	} finally {
		await browser.close();
	}
}

async function waitFor(what, probe, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > deadline)
			throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

/** Webhook trigger (GET /webhook/<path>) -> the step under test -> Log: "<tag> <JSON of its output>". */
function webhookWorkflow(id, tag, step, logConversation) {
	return {
		id,
		name: `E2E ${tag}`,
		nodes: [
			{
				id: `${id}-hook`,
				name: 'Start',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: crypto.randomUUID(),
				parameters: { httpMethod: 'GET', path: tag, responseMode: 'onReceived', options: {} },
			},
			{
				id: crypto.randomUUID(),
				name: 'Ask',
				type: TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters: step,
				credentials,
			},
			{
				id: `${id}-log`,
				name: 'Log',
				type: TYPE,
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					resource: 'message',
					operation: 'send',
					conversationId: byId(logConversation),
					text: `=${tag} {{ JSON.stringify($json) }}`,
				},
				credentials,
			},
		],
		connections: {
			Start: { main: [[{ node: 'Ask', type: 'main', index: 0 }]] },
			Ask: { main: [[{ node: 'Log', type: 'main', index: 0 }]] },
		},
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** The sandbox with Ann, Bob and Eve (each with a token), the conversations of the cases, and readers of the log. */
async function startSendAndWaitSandbox() {
	const sandbox = await createSandbox({
		tokens: {
			[TOKEN]: 'ct_me',
			[ANN_TOKEN]: 'ct_ann',
			[BOB_TOKEN]: 'ct_bob',
			[EVE_TOKEN]: 'ct_eve',
		},
		seed: 'none',
	}).start();
	const { store } = sandbox;
	store.addContact({ id: 'ct_bob', username: 'bob' });
	const approvals = store.createConversation({ contact_id: 'ct_ann' }).id;
	const questions = store.createConversation({ contact_id: 'ct_ann' }).id;
	const elsewhere = store.createConversation({ contact_id: 'ct_ann' }).id;
	const log = store.createConversation({ contact_id: 'ct_bob' }).id;
	const votes = store.createConversation({ contact_id: 'ct_ann' }).id;
	store.addContact({ id: 'ct_eve', username: 'ct_ann' }); // names herself after ann's ID
	const logged = (tag) =>
		store
			.listMessages({ conversation_id: log })
			.map((m) => m.message)
			.filter((t) => t.startsWith(`${tag} `))
			.map((t) => JSON.parse(t.slice(tag.length + 1)));
	/** Writes a message over HTTP with a token, as that account's own client would. */
	const post = async (token, conversationId, message) => {
		const response = await fetch(`${sandbox.url}/v1/messages`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${token}`,
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: new URLSearchParams({ conversation_id: conversationId, message }),
		});
		assert.equal(response.status, 200);
		return await response.json();
	};
	return { sandbox, store, approvals, questions, elsewhere, log, votes, logged, post };
}

/**
 * One workflow per case: Send and Wait for Response's approval, time-out, free text, hostile text and custom
 * form; Send and Wait for Reply's reaction, keyword and reply.
 */
function sendAndWaitWorkflows({ approvals, questions, votes, log }) {
	const approve = {
		resource: 'message',
		operation: 'sendAndWait',
		conversationId: byId(approvals),
		message: '={{ "Archive " + ($json.query.who ?? "it") + "?" }}',
		approvalOptions: { values: { approvalType: 'double' } },
	};
	const workflows = [
		webhookWorkflow(
			'e2eSwApprove001',
			'approve',
			{ ...approve, options: { updateRequestMessage: true } },
			log,
		),
		webhookWorkflow(
			'e2eSwTimeout001',
			'timeout',
			{
				...approve,
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 0.05, resumeUnit: 'minutes' },
					},
					updateRequestMessage: true,
				},
			},
			log,
		),
		webhookWorkflow(
			'e2eSwFreeText01',
			'freetext',
			{ ...approve, responseType: 'freeText', message: 'Why archive?' },
			log,
		),
		webhookWorkflow(
			'e2eSwHostile001',
			'hostile',
			{
				...approve,
				responseType: 'freeText',
				message: HOSTILE,
				options: { responseFormTitle: HOSTILE, responseFormButtonLabel: HOSTILE },
			},
			log,
		),
		webhookWorkflow(
			'e2eSwCustomFm01',
			'customform',
			{
				...approve,
				responseType: 'customForm',
				message: 'Refund order 1042?',
				formFields: {
					values: [
						{ fieldLabel: 'Amount', fieldType: 'number', requiredField: true },
						{
							fieldLabel: 'Checks',
							fieldType: 'checkbox',
							fieldOptions: { values: [{ option: 'ID seen' }, { option: 'Receipt seen' }] },
						},
						{ fieldLabel: HOSTILE, fieldType: 'text' },
						{ fieldLabel: 'Refund on', fieldType: 'date' },
					],
				},
			},
			log,
		),
		webhookWorkflow(
			'e2eSwReaction01',
			'reaction',
			{
				resource: 'message',
				operation: 'sendAndWaitForReply',
				conversationId: byId(questions),
				message: 'Deploy 2.4 to production?',
				responseType: 'approvalByReaction',
				approvers: 'ct_ann',
				replyTimeout: 120,
				checkInterval: 0.5,
			},
			log,
		),
		webhookWorkflow(
			'e2eSwKeyword001',
			'keyword',
			{
				resource: 'message',
				operation: 'sendAndWaitForReply',
				conversationId: byId(votes),
				message: 'Refund order 7 (90 EUR)?',
				responseType: 'approvalByKeyword',
				approvers: 'ct_ann, ct_bob',
				approvalsRequired: 2,
				replyTimeout: 120,
				checkInterval: 0.5,
				options: { updateRequestMessage: true },
			},
			log,
		),
		webhookWorkflow(
			'e2eSwReply00001',
			'reply',
			{
				resource: 'message',
				operation: 'sendAndWaitForReply',
				conversationId: byId(questions),
				message: 'Which size, S or M?',
				replyTimeout: 120,
				checkInterval: 0.5,
			},
			log,
		),
	];
	return workflows;
}

module.exports = {
	TOKEN,
	ANN_TOKEN,
	BOB_TOKEN,
	EVE_TOKEN,
	HOSTILE,
	withChromium,
	waitFor,
	startSendAndWaitSandbox,
	sendAndWaitWorkflows,
};
