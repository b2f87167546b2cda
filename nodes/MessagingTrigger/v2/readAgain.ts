import type { Logger, NodeApiError } from 'n8n-workflow';

import { messagingApiRequest, type RequestContext } from '../../shared/transport';
import { toTriggerMessage, type TriggerMessage } from '../pollState';

/**
 * The messages of `ids` read again one by one (to emit a lost delivery again after a restart); a
 * message deleted since is left out with a log line, any other failure is thrown.
 */
export async function readMessagesAgain(
	context: RequestContext,
	ids: string[],
	logger: Logger,
): Promise<TriggerMessage[]> {
	const messages: TriggerMessage[] = [];
	const deleted = (error: unknown) => {
		if ((error as NodeApiError).httpCode !== '404') throw error;
		return undefined;
	};
	for (const id of ids) {
		const record = await messagingApiRequest
			.call(context, { method: 'GET', path: ['messages', id] }, { expect: 'record' })
			.catch(deleted);
		const message = record && toTriggerMessage(record);
		if (message) messages.push(message);
		else logger.warn(`Messaging Trigger: message ${id} is gone; it is not delivered again`);
	}
	return messages;
}
