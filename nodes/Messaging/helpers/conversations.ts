import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getMessagingCredentials } from '../../shared/transport';
import { getConversationOrFail } from '../sendAndWait/conversation';
import type { RunContext } from '../types';

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
