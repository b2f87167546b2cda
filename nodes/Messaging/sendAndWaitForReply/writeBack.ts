/** Send and Wait for Reply's Update Request Message: the reply or decision written below the question. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RequestOptions } from '../../shared/transport';
import { senderOf } from '../../shared/ids';
import type { ListedMessage } from '../../shared/listedMessage';
import {
	DEFAULT_OUTCOME_LINE,
	outcomeLine,
	updateRequestMessage,
	updatedRequestText,
	type Outcome,
} from '../helpers/requestUpdate';

export const ON_TIMEOUT_TOO = 'A time-out is written too, whatever On Timeout says.';

/** What the wait's result says: a decision and its deciders, a reply and its sender, or nothing in time. */
export function outcomeOf(result: IDataObject | undefined, at: Date): Outcome {
	if (result === undefined || result.timedOut === true)
		return { outcome: 'No answer (timed out)', by: [], at };
	if (typeof result.approved === 'boolean') {
		const by = (result.approved ? result.approvedBy : result.declinedBy) as string[] | undefined;
		return { outcome: result.approved ? 'Approved' : 'Declined', by: by ?? [], at };
	}
	const { id, username } = senderOf((result.reply ?? {}) as ListedMessage);
	const who = username ?? id;
	return { outcome: 'Answered', by: who === undefined ? [] : [who], at };
}

/**
 * The result, with `requestUpdate` when Update Request Message is on (the request message then edited to
 * `requestText` and the outcome line); `result` undefined: the wait timed out into a failure.
 */
export async function withRequestUpdate<T extends IDataObject | undefined>(
	context: IExecuteFunctions,
	itemIndex: number,
	options: RequestOptions,
	sent: ListedMessage,
	requestText: string,
	result: T,
): Promise<T> {
	if (context.getNodeParameter('options.updateRequestMessage', itemIndex, false) !== true)
		return result;
	const template = String(
		context.getNodeParameter('options.outcomeLine', itemIndex, DEFAULT_OUTCOME_LINE) ?? '',
	);
	const line = outcomeLine(template, outcomeOf(result, new Date()), context.getTimezone());
	const requestUpdate = await updateRequestMessage(
		context,
		sent.id,
		updatedRequestText(requestText, line),
		options,
	);
	return (result === undefined ? result : { ...result, requestUpdate }) as T;
}
