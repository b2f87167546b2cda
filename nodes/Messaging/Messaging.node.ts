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
import { router } from './actions/router';
import { toolDescriptionProperty } from './descriptions/tool';
import { searchConversations, searchMessages } from './methods/listSearch';
import { sendAndWaitWebhook, sendAndWaitWebhooks } from './sendAndWait/webhook';

const properties: INodeProperties[] = [
	toolDescriptionProperty,
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
		// The operation's action sentence ("Send a message"); kept equal to the options' `action` by a unit test.
		subtitle:
			'={{ {"message":{"addReaction":"Add a reaction to a message","delete":"Delete a message","get":"Get a message","getAll":"Get many messages","removeReaction":"Remove a reaction from a message","send":"Send a message","sendAndWaitForReply":"Send a message and wait for a reply in the chat","sendAndWait":"Send a message and wait for response","update":"Update a message"},"conversation":{"archive":"Archive a conversation","create":"Create a conversation","delete":"Delete a conversation","get":"Get a conversation","getAll":"Get many conversations","getContext":"Get a conversation transcript","mute":"Mute a conversation","pin":"Pin a conversation","unarchive":"Unarchive a conversation","unmute":"Unmute a conversation","unpin":"Unpin a conversation","update":"Update a conversation"},"service":{"checkCompatibility":"Check compatibility with the service"}}[$parameter["resource"]]?.[$parameter["operation"]] }}',
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
