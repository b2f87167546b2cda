import type { Logger, NodeApiError } from 'n8n-workflow';

import { messagingApiRequest, type RequestContext } from '../../shared/transport';
import { toTriggerMessage, type TriggerMessage } from '../pollState';

/** Other events' keys carry their kind as a prefix; a New Message key is the message id itself. */
const EVENT_KEY = /^(edited|reaction[+-]|conversation|burst):/;

export function isMessageKey(key: string): boolean {
	return !EVENT_KEY.test(key);
}

/**
 * The messages of `keys` read again one by one (to emit a lost delivery again after a restart); a
 * message deleted since, or a key that names no message (another event, kept only in memory), is
 * left out with a log line; any other failure is thrown.
 */
export async function readMessagesAgain(
	context: RequestContext,
	keys: string[],
	logger: Logger,
): Promise<TriggerMessage[]> {
	const messages: TriggerMessage[] = [];
	const deleted = (error: unknown) => {
		if ((error as NodeApiError).httpCode !== '404') throw error;
		return undefined;
	};
	for (const key of keys) {
		if (!isMessageKey(key)) {
			logger.warn(
				`Messaging Trigger: event ${key} was lost with a restart and cannot be read again; it is not delivered again`,
			);
			continue;
		}
		const record = await messagingApiRequest
			.call(context, { method: 'GET', path: ['messages', key] }, { expect: 'record' })
			.catch(deleted);
		const message = record && toTriggerMessage(record);
		if (message) messages.push(message);
		else logger.warn(`Messaging Trigger: message ${key} is gone; it is not delivered again`);
	}
	return messages;
}
