/** Messages as output items, as both versions emit them. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { simplifyMessage } from '../shared/simplify/records';
import { withIsoTimestamps, type TimestampUnitSetting } from '../shared/timestamps';
import { attachmentOutput } from '../shared/attachments/triggerDownloads';
import type { TriggerMessage } from './triggerState';

export type OutputSettings = { isoTimestamps: boolean; unitSetting: TimestampUnitSetting };

/** Simplify's `from_me` is told by `own`, the account's contact where known. */
export type MessageOutputSettings = OutputSettings & { simplify?: boolean; own?: string };

/** Messages as items, each with its downloaded files (attachments.ts) and `extra`. */
export function messageItems(
	messages: TriggerMessage[],
	settings: MessageOutputSettings,
	extra: IDataObject = {},
): INodeExecutionData[] {
	return messages.map((message) => {
		const files = attachmentOutput(message);
		return {
			json: { ...messageRecord(message, settings), ...files.json, ...extra },
			...(files.binary ? { binary: files.binary } : {}),
		};
	});
}

/** A message as an item before its files are downloaded (see deliveryItems.ts). */
export function messageItem(
	message: TriggerMessage,
	settings: MessageOutputSettings,
	extra: IDataObject = {},
): INodeExecutionData {
	return { json: { ...messageRecord(message, settings), ...extra } };
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

function record(value: object, settings: OutputSettings): IDataObject {
	return settings.isoTimestamps
		? withIsoTimestamps(value as IDataObject, settings.unitSetting)
		: (value as IDataObject);
}

/** A message as every item carries it: simplified when Simplify is on, wherever it sits in the item. */
function messageRecord(message: object, settings: MessageOutputSettings): IDataObject {
	if (!settings.simplify) return record(message, settings);
	return simplifyMessage(message as TriggerMessage, {
		unit: settings.unitSetting,
		own: settings.own ? [settings.own] : [],
	}) as IDataObject;
}

/** An event's item: `{ event, message | conversation, before?, after?, reaction?, reactor? }` (see docs/trigger-events.md). */
export function eventItem(
	event: string,
	fields: { message?: object; conversation?: object } & IDataObject,
	settings: MessageOutputSettings,
	extra: IDataObject = {},
): INodeExecutionData {
	const json: IDataObject = { event, ...fields };
	if (fields.message) json.message = messageRecord(fields.message, settings);
	if (fields.conversation) json.conversation = record(fields.conversation, settings);
	return { json: { ...json, ...extra } };
}

/** A grouped burst's one item: its messages in order, their texts joined, the first and last ids. */
export function burstItem(
	messages: TriggerMessage[],
	settings: MessageOutputSettings,
	extra: IDataObject = {},
): INodeExecutionData {
	const first = messages[0];
	const last = messages[messages.length - 1];
	return eventItem(
		'messageBurst',
		{
			conversation_id: first.conversation_id as string,
			sender: (first.contact ?? null) as IDataObject,
			text: messages.map((m) => (typeof m.message === 'string' ? m.message : '')).join('\n'),
			count: messages.length,
			firstMessageId: first.id,
			lastMessageId: last.id,
			messages: messages.map((m) => messageRecord(m, settings)),
		},
		settings,
		extra,
	);
}
