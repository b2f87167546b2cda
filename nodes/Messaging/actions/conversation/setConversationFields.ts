import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { FormValue } from '../../../shared/transport/form';
import { fromMilliseconds } from '../../../shared/timestamps';
import { messagingApiRequest } from '../../../shared/transport';
import { optionsCollection } from '../../descriptions/common';
import { conversationLocator } from '../../descriptions/locators';
import { getRequiredId } from '../../helpers/parameters';
import type { MessagingOperation, OperationResult, RunContext } from '../../types';

/** PUT /v1/conversations/{id} with the given fields; the response is the whole updated conversation. */
export async function putConversation(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	conversationId: string,
	body: { [key: string]: FormValue },
): Promise<IDataObject> {
	return await messagingApiRequest.call(
		this,
		{ method: 'PUT', path: ['conversations', conversationId], body },
		run.requestOptions(itemIndex, 'record'),
	);
}

/**
 * An operation that puts a conversation into one state (archived, pinned, muted or their opposite):
 * it needs only the conversation, so Archive, Pin, Mute and their undo are one line each.
 */
export function conversationStateOperation(
	operation: string,
	fields: (
		this: IExecuteFunctions,
		itemIndex: number,
		run: RunContext,
	) => Promise<{ [key: string]: FormValue }>,
): Omit<MessagingOperation, 'toolDescription'> {
	const properties: INodeProperties[] = [
		conversationLocator,
		optionsCollection({ isoTimestamps: true }),
	];
	return {
		description: updateDisplayOptions(
			{ show: { resource: ['conversation'], operation: [operation] } },
			properties,
		),
		async execute(
			this: IExecuteFunctions,
			itemIndex: number,
			run: RunContext,
		): Promise<OperationResult> {
			const conversationId = getRequiredId(this, 'conversationId', itemIndex, 'Conversation');
			const body = await fields.call(this, itemIndex, run);
			return await putConversation.call(this, itemIndex, run, conversationId, body);
		},
	};
}

/** Now, in the service's timestamp unit. */
export async function nowInServiceUnit(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<number> {
	return fromMilliseconds(Date.now(), await run.timestampUnit(itemIndex));
}
