/**
 * Fetch Test Event when New Message is not among the Events: one item of the first chosen event's
 * shape, built from what exists now (the newest message or conversation), so fields can be mapped.
 * The stored state is neither read nor written.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { servicePages } from '../../shared/paginate';
import type { RequestContext } from '../../shared/transport';
import { fetchNewest } from '../newest';
import { listQuery, type TriggerOptions } from '../options';
import { eventItem, noMessagesText, type OutputSettings } from '../output';
import { reactionPairs } from './watch';

/** The sample item, or why there is none yet (`message`, `description`). */
export async function sampleEventItem(
	context: RequestContext,
	options: TriggerOptions,
	output: OutputSettings,
): Promise<INodeExecutionData | { message: string; description: string }> {
	const event = options.events.events[0];
	if (event === 'newConversation') {
		const newest = await fetchNewest(servicePages(context, 'conversations', {}), options.pageSize);
		if (!newest)
			return {
				message: 'There are no conversations yet',
				description: 'Start a conversation, then fetch the test event again.',
			};
		return eventItem('newConversation', { conversation: newest }, output);
	}
	const newest = await fetchNewest(
		servicePages(context, 'messages', listQuery(options)),
		options.pageSize,
	);
	if (!newest) return noMessagesText(options.conversationId);
	if (event === 'messageEdited') {
		const text = typeof newest.message === 'string' ? newest.message : '';
		return eventItem(
			'messageEdited',
			{ message: newest, before: { message: text }, after: { message: text } },
			output,
		);
	}
	const [pair] = reactionPairs(newest.reactions);
	if (pair === undefined)
		return {
			message: `The newest message (${newest.id}) has no reaction yet`,
			description: 'React to a message, then fetch the test event again.',
		};
	const [reaction, reactor] = pair.split('\n');
	const fields: IDataObject & { message: object } = { message: newest, reaction, reactor };
	return eventItem(event, fields, output);
}
