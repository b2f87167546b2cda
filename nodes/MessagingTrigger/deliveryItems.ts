/**
 * A delivery's items, built once, at emit, from its decisions (decisions.ts): the first attempt's, with
 * the files downloaded for it, and a later attempt's, marked as a redelivery.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { withAttachmentOutput } from '../shared/attachments/triggerDownloads';
import type { Decision } from './decisions';
import { onlyNewMessages, type EventSettings } from './events/settings';
import {
	burstItem,
	eventItem,
	gapWarning,
	messageItem,
	messageItems,
	type MessageOutputSettings,
} from './output';
import type { TriggerMessage } from './triggerState';

export interface EmitSettings {
	events: EventSettings;
	output: MessageOutputSettings;
}

/** A decision with its item as first built, before files and marks. */
export interface BuiltItem {
	decision: Decision;
	item: INodeExecutionData;
}

/** New Message alone: the message is the item, with its files. Any other event has an item of its own shape. */
function itemIsMessage(decision: Decision, events: EventSettings): TriggerMessage | undefined {
	return decision.event === 'newMessage' && onlyNewMessages(events) ? decision.message : undefined;
}

/** The messages whose files the items carry: downloaded before the emit. */
export function messagesWithFiles(decisions: Decision[], events: EventSettings): TriggerMessage[] {
	return decisions.flatMap((d) => itemIsMessage(d, events) ?? []);
}

/** One decision's item. `gap`: the check's warning, on the items of new messages. */
function decisionItem(
	decision: Decision,
	settings: EmitSettings,
	gap?: string,
): INodeExecutionData {
	const { output } = settings;
	switch (decision.event) {
		case 'newMessage':
			return onlyNewMessages(settings.events)
				? messageItem(decision.message, output, gapWarning(gap))
				: eventItem('newMessage', { message: decision.message }, output, gapWarning(gap));
		case 'messageBurst':
			return burstItem(decision.messages, output, gapWarning(gap));
		case 'newConversation':
			return eventItem('newConversation', { conversation: decision.conversation }, output);
		case 'messageEdited': {
			const fields: IDataObject & { message: object } = { message: decision.message };
			if (decision.before) fields.before = decision.before;
			fields.after = decision.after as IDataObject;
			return eventItem('messageEdited', fields, output);
		}
		default: {
			const { reaction, reactor } = decision.key;
			return eventItem(decision.event, { message: decision.message, reaction, reactor }, output);
		}
	}
}

export function buildItems(
	decisions: Decision[],
	settings: EmitSettings,
	gap?: string,
): BuiltItem[] {
	return decisions.map((decision) => ({ decision, item: decisionItem(decision, settings, gap) }));
}

/** The first attempt's items: each message's item with its downloaded files (attachments.ts). */
export function withFiles(built: BuiltItem[], events: EventSettings): INodeExecutionData[] {
	return built.flatMap(({ decision, item }) => {
		const message = itemIsMessage(decision, events);
		return withAttachmentOutput([item], message ? [message] : []);
	});
}

/**
 * A later attempt's items, marked: a message shaped again, with its files; an event's item as it was
 * first built (its gap warning too).
 */
export function markedAgain(
	built: BuiltItem[],
	settings: EmitSettings,
	marks: IDataObject,
): INodeExecutionData[] {
	return built.map(({ decision, item }) => {
		const message = itemIsMessage(decision, settings.events);
		return message
			? messageItems([message], settings.output, marks)[0]
			: { json: { ...item.json, ...marks } };
	});
}
