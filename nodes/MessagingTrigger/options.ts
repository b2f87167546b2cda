/** The trigger's parameters, read once per check into one typed object. */
import type { IDataObject, IPollFunctions, ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE } from '../shared/paginate';
import { readEventSettings, type EventSettings } from './events/settings';

export interface TriggerOptions {
	/** Empty: every conversation. */
	conversationId: string;
	emitExisting: boolean;
	isoTimestamps: boolean;
	lookBackSeconds: number;
	pageSize: number;
	simplify: boolean;
	skipOwnMessages: boolean;
	/** Version 2's Events and their options; version 1 has new messages only. */
	events: EventSettings;
}

export function readOptions(context: IPollFunctions | ITriggerFunctions): TriggerOptions {
	const conversationId = String(
		context.getNodeParameter('conversationId', '', { extractValue: true }) ?? '',
	).trim();
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const number = (value: unknown, fallback: number) => {
		const n = Number(value);
		return value === undefined || value === '' || !Number.isFinite(n) ? fallback : n;
	};
	const events = readEventSettings(context.getNodeParameter('events', ['newMessage']), options);
	if (typeof events === 'string') throw new NodeOperationError(context.getNode(), events);
	if (events.events.includes('newConversation') && conversationId !== '')
		throw new NodeOperationError(
			context.getNode(),
			'New Conversation watches every conversation: leave Conversation empty, or take New Conversation out of Events',
		);
	return {
		events,
		conversationId,
		emitExisting: options.emitExisting === true,
		isoTimestamps: options.isoTimestamps === true,
		lookBackSeconds: Math.max(0, number(options.lookBackSeconds, 60)),
		pageSize: Math.min(1000, Math.max(1, Math.floor(number(options.pageSize, PAGE_SIZE)))),
		simplify: options.simplify === true,
		skipOwnMessages: options.skipOwnMessages !== false,
	};
}

/** The list query the options ask for. */
export function listQuery(options: TriggerOptions): { conversation_id?: string } {
	return { conversation_id: options.conversationId === '' ? undefined : options.conversationId };
}
