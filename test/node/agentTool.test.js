'use strict';
const { Workflow, NodeHelpers } = require('n8n-workflow');
const { runMessagingNode, nodeTypes } = require('../harness/n8n');
const { startSandbox, byId } = require('../harness/sandbox');
const { Messaging } = require('../../dist/nodes/Messaging/Messaging.node');
const { withNextStep } = require('../../dist/nodes/Messaging/descriptions/tool');
const { TOOL_DESCRIPTIONS } = require('../../dist/nodes/Messaging/actions/resources');
const { readableArguments } = require('../../dist/nodes/Messaging/helpers/reviewRequest');

let sandbox;
let credentials;
beforeEach(async () => {
	({ sandbox, credentials } = await startSandbox({ seed: 'none' }));
	const { store } = sandbox;
	store.addContact({ id: 'ct_ann', username: 'ann' });
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000001
	store.createConversation({ contact_id: 'ct_ann' }); // conv_00000002
	for (let n = 1; n <= 130; n++)
		store.sendMessage('ct_ann', { conversation_id: 'conv_00000001', message: `m${n}` });
	sandbox.clearRequests();
});
afterEach(() => sandbox.stop());

const TOOL = 'n8n-nodes-messaging.messagingTool';

describe('the node as an AI agent’s tool', () => {
	test('every operation has a tool description; destructive ones say so', () => {
		const operations = new Messaging().description.properties.filter((p) => p.name === 'operation');
		for (const property of operations) {
			const resource = /** @type {string} */ (property.displayOptions.show.resource[0]);
			for (const { value } of /** @type {Array<{ value: string }>} */ (property.options)) {
				expect([resource, value, TOOL_DESCRIPTIONS[resource]?.[value]]).toEqual([
					resource,
					value,
					expect.any(String),
				]);
			}
		}
		expect(TOOL_DESCRIPTIONS.message.delete).toMatch(/^DESTRUCTIVE/);
		expect(TOOL_DESCRIPTIONS.conversation.delete).toMatch(/^DESTRUCTIVE/);
	});

	test('n8n resolves the tool’s Description to the chosen operation’s text', () => {
		for (const [resource, operations] of Object.entries(TOOL_DESCRIPTIONS)) {
			for (const [operation, text] of Object.entries(operations)) {
				/** @type {import('n8n-workflow').INode} */
				const node = {
					id: '1',
					name: 'Tool',
					type: TOOL,
					typeVersion: 2,
					position: [0, 0],
					parameters: { resource, operation },
				};
				const workflow = new Workflow({
					id: 'w',
					nodes: [node],
					connections: {},
					active: false,
					nodeTypes,
					settings: {},
				});
				const tool = workflow.getNode('Tool');
				/** @returns {string} the Description as n8n resolves it */
				const resolve = () =>
					/** @type {string} */ (
						workflow.expression.getSimpleParameterValue(
							tool,
							/** @type {string} */ (tool.parameters.toolDescription),
							'manual',
							{},
						)
					);
				expect(
					NodeHelpers.getToolDescriptionForNode(tool, nodeTypes.getByNameAndVersion(TOOL), resolve),
				).toBe(text);
			}
		}
		// The regular node has no Description.
		const regular = new Workflow({
			id: 'w',
			nodes: [
				{
					id: '1',
					name: 'Node',
					type: 'n8n-nodes-messaging.messaging',
					typeVersion: 2,
					position: [0, 0],
					parameters: {},
				},
			],
			connections: {},
			active: false,
			nodeTypes,
			settings: {},
		});
		expect(regular.getNode('Node').parameters.toolDescription).toBeUndefined();
	});

	test('Get Many as a tool: a limit of 10,000 or Return All is lowered to 100 compact messages', async () => {
		for (const parameters of [{ limit: 10_000 }, { returnAll: true }]) {
			const { items, error } = await runMessagingNode({
				parameters: {
					resource: 'message',
					operation: 'getAll',
					...parameters,
					filters: { conversationId: byId('conv_00000001') },
				},
				credentials,
				typeVersion: 2,
				type: TOOL,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(100);
			expect(items[0].json).toHaveProperty('from', 'ann');
			// As a tool, empty fields are left out (the regular node keeps them: a stable shape for expressions).
			expect(Object.keys(items[0].json).sort()).toEqual([
				'conversation_id',
				'from',
				'from_id',
				'from_me',
				'id',
				'sent_at',
				'text',
			]);
		}
		const regular = await runMessagingNode({
			parameters: { resource: 'message', operation: 'getAll', returnAll: true },
			credentials,
			typeVersion: 2,
		});
		expect(regular.items).toHaveLength(130);
	});

	test('the human-review tool’s request shows the tool and its arguments, not [object Object]', async () => {
		const { error } = await runMessagingNode({
			parameters: {
				resource: 'message',
				operation: 'sendAndWait',
				conversationId: byId('conv_00000002'),
				// n8n's default request text of a human-review tool (n8n 2.40.7, tool-generation/hitl-tools.js)
				message:
					'=The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ $tool.parameters }}',
			},
			input: [
				{
					tool: 'Send_a_message_in_Messaging',
					toolParameters: { Conversation: 'conv_00000001', Text: 'Refund\napproved' },
				},
			],
			credentials,
			typeVersion: 2,
			type: 'n8n-nodes-messaging.messagingHitlTool',
		});
		expect(error).toBeUndefined();
		const [request] = sandbox.store.listMessages({ conversation_id: 'conv_00000002' });
		expect(request.message).toMatch(
			/^The agent wants to run this tool: Send_a_message_in_Messaging\n\nInput:\n- Conversation: conv_00000001\n- Text: Refund\n  approved\n\nApprove: http/,
		);
	});

	test('a service’s refusal, as a tool: one message that says what to do next; as a node: unchanged', async () => {
		const get = (type) =>
			runMessagingNode({
				parameters: { resource: 'message', operation: 'get', messageId: byId('msg_nope') },
				credentials,
				typeVersion: 2,
				...(type ? { type } : {}),
			});
		expect((await get(TOOL)).error.message).toBe(
			'Not found: No such message: msg_nope. Check the ID: use one returned by another call (Get Many, Get Context), never a name.',
		);
		expect((await get()).error.message).toBe('Not found: No such message: msg_nope');
		expect(withNextStep('Too many requests.', '429')).toBe(
			'Too many requests. The service is rate limiting; wait before calling again.',
		);
		expect(withNextStep('Odd', '418')).toBe('Odd');
	});

	test('readable arguments: text as is, other values as JSON', () => {
		expect(readableArguments({ a: 'x', n: 3, o: { k: [1] } })).toBe(
			'- a: x\n- n: 3\n- o: {"k":[1]}',
		);
		expect(readableArguments({})).toBe('(no arguments)');
		expect(readableArguments('plain')).toBe('plain');
		expect(readableArguments(undefined)).toBe('');
		// Whatever the line break, a value's continuation is indented: it cannot read as another argument.
		for (const sep of ['\n', '\r\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029']) {
			expect(readableArguments({ Text: `Refund 5 EUR${sep}- Amount: 5000`, Amount: 5 })).toBe(
				'- Text: Refund 5 EUR\n  - Amount: 5000\n- Amount: 5',
			);
		}
	});
});
