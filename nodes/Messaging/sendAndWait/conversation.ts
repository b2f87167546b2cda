import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { messagingApiRequest, type RequestOptions } from '../../shared/transport';
import { getText, inputError } from '../helpers/parameters';
import { reviewRequestText } from '../helpers/reviewRequest';

/** A conversation that does not exist is bad input: said before anything is sent, naming field and item. */
export async function getConversationOrFail(
	context: IExecuteFunctions,
	conversationId: string,
	itemIndex: number,
	options: RequestOptions,
): Promise<IDataObject> {
	try {
		return await messagingApiRequest.call(
			context,
			{ method: 'GET', path: ['conversations', conversationId] },
			{ ...options, itemIndex, expect: 'record' },
		);
	} catch (error) {
		if ((error as { httpCode?: unknown }).httpCode === '404') {
			throw inputError(context, itemIndex, 'Conversation', `"${conversationId}" does not exist`);
		}
		throw nodeErrorOf(context.getNode(), error, itemIndex);
	}
}

/** A caught error as the node error it is, or wrapped with the item index. */
export function nodeErrorOf(
	node: INode,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}

export async function postMessage(
	context: IExecuteFunctions,
	conversationId: string,
	text: string,
	itemIndex: number,
	options: RequestOptions,
): Promise<IDataObject> {
	return await messagingApiRequest.call(
		context,
		{
			method: 'POST',
			path: ['messages'],
			body: { conversation_id: conversationId, message: text },
		},
		{ ...options, itemIndex, expect: 'record' },
	);
}

/** The Message parameter: text that is not blank. */
export function getMessageText(context: IExecuteFunctions, itemIndex: number): string {
	return (
		reviewRequestText(context, itemIndex) ??
		getText(context, 'message', itemIndex, 'Message', { required: true })
	);
}
