import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { reactionsFromService, type ReactionMap } from '../../helpers/reactions';
import { messagingApiRequest } from '../../../shared/transport';
import { optionsCollection } from '../../descriptions/common';
import { messageLocators } from '../../descriptions/locators';
import { getRequiredId, getText } from '../../helpers/parameters';
import type { OperationResult, RunContext } from '../../types';

/** One at a time: two items reacting to one message never overwrite each other's change. */
export const parallelRequests = 1;

/** The fields of Add Reaction and Remove Reaction. */
export function reactionProperties(verb: 'add' | 'remove'): INodeProperties[] {
	return [
		...messageLocators,
		{
			displayName: 'Reaction',
			name: 'reaction',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'like',
			description: `The reaction name to ${verb}, e.g. like or 👍`,
		},
		{
			displayName: 'Reactor',
			name: 'reactor',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'ann',
			description: `Who reacts: the username or contact ID to ${verb} under this reaction`,
		},
		optionsCollection({
			isoTimestamps: true,
			parallel: {
				default: parallelRequests,
				note: 'Kept at 1, two items on the same message never overwrite each other’s reaction.',
			},
		}),
	];
}

/**
 * Reads the message and writes back its whole reaction set with one change, so everyone
 * else's reactions are kept (the service only accepts the full set).
 */
export async function changeReaction(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	change: (reactions: ReactionMap, name: string, reactor: string) => ReactionMap,
): Promise<OperationResult> {
	const messageId = getRequiredId(this, 'messageId', itemIndex, 'Message');
	const name = getText(this, 'reaction', itemIndex, 'Reaction', { required: true }).trim();
	const reactor = getText(this, 'reactor', itemIndex, 'Reactor', { required: true }).trim();
	const message = (await messagingApiRequest.call(
		this,
		{ method: 'GET', path: ['messages', messageId] },
		run.requestOptions(itemIndex, 'record'),
	)) as IDataObject;
	// The write replaces the whole set: without the current set in the answer, writing would wipe it.
	// The service's list form, or one object (as the spec shows an update's answer).
	const current = message.reactions;
	if (current === null || typeof current !== 'object') {
		throw new NodeApiError(this.getNode(), { message: 'incomplete message' } as JsonObject, {
			message: `The Messaging service returned message ${messageId} without its "reactions" list, so nothing was written`,
			description:
				'Changing one reaction rewrites the whole set; without the current set every other reaction would be lost.',
			itemIndex,
		});
	}
	const reactions = change(reactionsFromService(current), name, reactor);
	return await messagingApiRequest.call(
		this,
		{ method: 'PUT', path: ['messages', messageId], body: { reactions } },
		run.requestOptions(itemIndex, 'record'),
	);
}
