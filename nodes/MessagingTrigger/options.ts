/** The trigger's parameters, read once per check into one typed object. */
import type { IDataObject, IPollFunctions, ITriggerFunctions } from 'n8n-workflow';

import { PAGE_SIZE } from '../shared/paginate';

export interface TriggerOptions {
	/** Empty: every conversation. */
	conversationId: string;
	emitExisting: boolean;
	isoTimestamps: boolean;
	lookBackSeconds: number;
	pageSize: number;
	simplify: boolean;
	skipOwnMessages: boolean;
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
	return {
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
