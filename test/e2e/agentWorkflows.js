'use strict';
/**
 * agent.e2e.js's workflows and script: a Webhook starting n8n's AI Agent with a scripted chat model and this
 * package's tools (the regular tool, its operations chosen by the model; the human-review tool gating Send), and
 * the tool calls the scripted model makes.
 */
const crypto = require('node:crypto');
const wf = require('./workflows');

const TYPE = 'n8n-nodes-messaging.messaging';
const OPENAI_CREDENTIAL = { id: 'e2eScriptedModel', name: 'Scripted model' };
const credentials = { messagingApi: { id: wf.CREDENTIAL_ID, name: 'Messaging (sandbox)' } };
/** What the editor writes for "let the model define this parameter": the display name as key, no description. */
const fromAI = (key, type = 'string') =>
	`={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('${key}', \`\`, '${type}') }}`;
const byId = (value) => ({ __rl: true, mode: 'id', value });

const tool = (name, parameters, type = `${TYPE}Tool`) => ({
	id: crypto.randomUUID(),
	name,
	type,
	typeVersion: 2,
	position: [0, 300],
	parameters,
	credentials,
});

/** Webhook (GET /webhook/<tag>) -> AI Agent, with the scripted model and `tools` (node -> agent or -> gate). */
function agentWorkflow(id, tag, tools, links) {
	const nodes = [
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
			id: `${id}-agent`,
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [220, 0],
			parameters: { promptType: 'define', text: `=Task ${tag}`, options: {} },
		},
		{
			id: `${id}-model`,
			name: 'Scripted Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.3,
			position: [120, 300],
			parameters: {
				model: { __rl: true, mode: 'id', value: 'scripted-1' },
				responsesApiEnabled: false,
				options: {},
			},
			credentials: { openAiApi: OPENAI_CREDENTIAL },
		},
		...tools,
	];
	const connections = {
		Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
		'Scripted Model': {
			ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
		},
	};
	for (const t of tools) {
		const to = links[t.name] ?? 'AI Agent';
		connections[t.name] = { ai_tool: [[{ node: to, type: 'ai_tool', index: 0 }]] };
	}
	return {
		id,
		name: `E2E agent ${tag}`,
		nodes,
		connections,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** The two agent workflows: `tools` (Send, Get Context, Get, Get Many) and `review` (Send behind the human-review tool). */
function agentWorkflows(approvals) {
	const send = (name) =>
		tool(name, {
			resource: 'message',
			operation: 'send',
			conversationId: byId(fromAI('Conversation')),
			text: fromAI('Text'),
		});
	const workflows = [
		agentWorkflow(
			'e2eAgentTools001',
			'tools',
			[
				send('Send a message in Messaging'),
				tool('Get a conversation transcript in Messaging', {
					resource: 'conversation',
					operation: 'getContext',
					conversationId: byId(fromAI('Conversation')),
					maxMessages: fromAI('Max_Messages', 'number'),
				}),
				tool('Get a message in Messaging', {
					resource: 'message',
					operation: 'get',
					messageId: byId(fromAI('Message')),
				}),
				tool('Get many messages in Messaging', {
					resource: 'message',
					operation: 'getAll',
					limit: fromAI('Limit', 'number'),
					filters: { conversationId: byId(fromAI('Conversation')) },
				}),
			],
			{},
		),
		agentWorkflow(
			'e2eAgentReview01',
			'review',
			[
				send('Send a message in Messaging'),
				tool(
					'Messaging',
					{
						conversationId: byId(approvals),
						approvalOptions: { values: { approvalType: 'double' } },
					},
					`${TYPE}HitlTool`,
				),
			],
			{ 'Send a message in Messaging': 'Messaging' },
		),
	];
	return workflows;
}

/** The model's script: tool calls for `Task tools` (`steps`), then for `Task review`; returns `steps`. */
function playScript(model, chat) {
	const steps = [
		{ tool: (n) => n.startsWith('Send_a_message'), args: { Conversation: chat, Text: 12345 } },
		{
			tool: (n) => n.startsWith('Get_a_conversation'),
			args: { Conversation: chat, Max_Messages: 5 },
		},
		{ tool: (n) => n.startsWith('Get_a_message'), args: { Message: 'msg_nope' } },
		{
			tool: (n) => n.startsWith('Get_many_messages'),
			args: { Conversation: chat, Limit: 10000 },
		},
		{ tool: (n) => n.startsWith('Get_a_message'), args: { Message: { id: 'msg_00000001' } } },
		{
			tool: (n) => n.startsWith('Get_many_messages'),
			args: { Conversation: 'conv_nope', Limit: 5 },
		},
		{ text: 'All done.' },
	];
	const reviewSteps = [
		{
			tool: (n) => n.startsWith('Send_a_message'),
			args: {
				toolParameters: { Conversation: chat, Text: 'Your refund for order 42 is approved.' },
				hitlParameters: {},
			},
		},
		{ text: 'Reviewed.' },
	];
	const prompt = (request) =>
		request.messages
			.filter((m) => m.role === 'user')
			.map((m) => String(m.content))
			.join('\n');
	model.play((request, turn) => {
		const script = /Task review/.test(prompt(request)) ? reviewSteps : steps;
		return script[turn] ?? { text: 'Done.' };
	});
	return steps;
}

module.exports = { OPENAI_CREDENTIAL, agentWorkflows, playScript };
