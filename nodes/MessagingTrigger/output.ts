/** Messages as output items, as both versions emit them. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { withIsoTimestamps, type TimestampUnitSetting } from '../shared/timestamps';
import { attachmentOutput } from './attachments';
import type { TriggerMessage } from './pollState';

export function messageItems(
	messages: TriggerMessage[],
	settings: { isoTimestamps: boolean; unitSetting: TimestampUnitSetting },
	extra: IDataObject = {},
): INodeExecutionData[] {
	return messages.map((message) => {
		const files = attachmentOutput(message);
		return {
			json: {
				...(settings.isoTimestamps
					? withIsoTimestamps(message as IDataObject, settings.unitSetting)
					: (message as IDataObject)),
				...files.json,
				...extra,
			},
			...(files.binary ? { binary: files.binary } : {}),
		};
	});
}

export function gapWarning(gap: string | undefined): IDataObject {
	return gap
		? {
				warning: `Possible gap: ${gap} Messages older than the oldest one delivered in this run may have been missed.`,
			}
		: {};
}

export function noMessagesText(conversationId: string): { message: string; description: string } {
	return {
		message: conversationId
			? `There are no messages in conversation ${conversationId} yet`
			: 'There are no messages yet',
		description: 'Send a message, then fetch the test event again.',
	};
}
