import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as conversation from './actions/conversation';
import * as message from './actions/message';
import * as service from './actions/service';
import { subtitle, toolDescription } from './actions/resources';
import { router } from './actions/router';
import { searchConversations, searchMessages } from './methods/listSearch';
import { sendAndWaitWebhook, sendAndWaitWebhooks } from './sendAndWait/webhook';

const properties: INodeProperties[] = [
	toolDescription,
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Conversation', value: 'conversation' },
			{ name: 'Message', value: 'message' },
			{ name: 'Service', value: 'service' },
		],
		default: 'message',
	},
	...message.description,
	...conversation.description,
	...service.description,
];

export class Messaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging',
		name: 'messaging',
		icon: { light: 'file:messaging.svg', dark: 'file:messaging.dark.svg' },
		group: ['output'],
		// 2: Simplify is on by default (version 1 keeps the service's records for existing workflows).
		version: [1, 2],
		defaultVersion: 2,
		// The chosen operation's action sentence ("Send a message"), from the Operation options.
		subtitle,
		description:
			'Send, read, edit and react to messages, read a conversation as a transcript, archive, pin or mute conversations, and check a service’s compatibility',
		defaults: { name: 'Messaging' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingApi', required: true }],
		// Send and Wait for Response: the links in the request message resume the execution here.
		webhooks: sendAndWaitWebhooks,
		waitingNodeTooltip:
			'={{ $parameter.operation === "sendAndWait" ? "Execution will continue after the person responds" : "" }}',
		properties,
	};

	methods = { listSearch: { searchConversations, searchMessages } };

	webhook = sendAndWaitWebhook;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
