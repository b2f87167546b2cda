/** Messages as output items, as both versions emit them. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { simplifyMessage } from '../shared/simplify';
import { withIsoTimestamps, type TimestampUnitSetting } from '../shared/timestamps';
import type { TriggerMessage } from './pollState';

export function messageItems(
	messages: TriggerMessage[],
	settings: { isoTimestamps: boolean; unitSetting: TimestampUnitSetting; simplify?: boolean },
	extra: IDataObject = {},
): INodeExecutionData[] {
	return messages.map((message) => ({
		json: {
			...(settings.simplify
				? (simplifyMessage(message, { unit: settings.unitSetting, own: [] }) as IDataObject)
				: settings.isoTimestamps
					? withIsoTimestamps(message as IDataObject, settings.unitSetting)
					: (message as IDataObject)),
			...extra,
		},
	}));
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
