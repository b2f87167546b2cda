import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	getMessagingCredentials,
	messagingApiRequest,
	type RequestOptions,
} from '../../shared/transport';
import type { RunContext } from '../types';
import { nodeErrorOf } from './errorItem';
import { inputError } from '../../shared/inputError';

/**
 * A conversation, read once per run and kept in the run (Simplify and Get Context tell "me" by it).
 * One that does not exist is an error naming the id, never an empty result.
 */
export async function readConversation(
	context: IExecuteFunctions,
	run: RunContext,
	conversationId: string,
	itemIndex: number,
): Promise<IDataObject> {
	const known = run.conversations.get(conversationId);
	if (known) return known;
	const conversation = await getConversationOrFail(
		context,
		conversationId,
		itemIndex,
		run.requestOptions(itemIndex),
	);
	run.conversations.set(conversationId, conversation);
	return conversation;
}

/** Whether the credential names the account ("Your Contact ID"). */
export async function hasOwnContact(context: IExecuteFunctions): Promise<boolean> {
	const own = (await getMessagingCredentials.call(context)).ownContactId;
	return typeof own === 'string' && own.trim() !== '';
}

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

/** Posts `text` into the conversation (both waits' request message); the service's record of it. */
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
