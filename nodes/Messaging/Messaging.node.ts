import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as conversation from './actions/conversation';
import * as message from './actions/message';
import { router } from './actions/router';
import { searchConversations, searchMessages } from './methods/listSearch';
import { sendAndWaitWebhook, sendAndWaitWebhooks } from './sendAndWait/webhook';

/** Each operation's action sentence ("Send a message") by resource and value, shown as the node's subtitle. */
function actionNames(): Record<string, Record<string, string>> {
	const names: Record<string, Record<string, string>> = {};
	for (const [resource, properties] of [
		['message', message.description],
		['conversation', conversation.description],
	] as const) {
		const operation = properties.find((p) => p.name === 'operation');
		names[resource] = Object.fromEntries(
			(operation?.options ?? []).map((o) => [String((o as INodePropertyOptions).value), String((o as INodePropertyOptions).action)]),
		);
	}
	return names;
}

export class Messaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging',
		name: 'messaging',
		icon: { light: 'file:messaging.svg', dark: 'file:messaging.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: `={{ ${JSON.stringify(actionNames())}[$parameter["resource"]]?.[$parameter["operation"]] }}`,
		description: 'Send, read, edit and react to messages, and archive, pin or mute conversations',
		defaults: { name: 'Messaging' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingApi', required: true }],
		// Send and Wait for Response: the links in the request message resume the execution here.
		webhooks: sendAndWaitWebhooks,
		waitingNodeTooltip:
			'={{ $parameter.operation === "sendAndWait" ? "Execution will continue after the person responds" : "" }}',
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Conversation', value: 'conversation' },
					{ name: 'Message', value: 'message' },
				],
				default: 'message',
			},
			...message.description,
			...conversation.description,
		],
	};

	methods = { listSearch: { searchConversations, searchMessages } };

	webhook = sendAndWaitWebhook;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
