/** Send and Wait for Reply's Update Request Message: the reply or decision written below the question. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RequestOptions } from '../../shared/transport';
import { senderOf } from '../../shared/ids';
import type { ListedMessage } from '../../shared/listedMessage';
import { itemSuffix } from '../../shared/inputError';
import {
	DEFAULT_OUTCOME_LINE,
	outcomeLine,
	updateRequestMessage,
	updatedRequestText,
	type Outcome,
} from '../helpers/requestUpdate';
import type { ReplySettings } from './replySettings';

export const ON_TIMEOUT_TOO =
	'A time-out is written too, whatever On Timeout says; with Fail, the error says how the edit went.';

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
 * How the edit of the request went (`requestUpdate`), undefined when Update Request Message is off;
 * `result` undefined: the wait timed out into a failure.
 */
export async function requestUpdateOf(
	context: IExecuteFunctions,
	itemIndex: number,
	options: RequestOptions,
	sent: ListedMessage,
	requestText: string,
	result: IDataObject | undefined,
): Promise<IDataObject | undefined> {
	if (context.getNodeParameter('options.updateRequestMessage', itemIndex, false) !== true)
		return undefined;
	const template = String(
		context.getNodeParameter('options.outcomeLine', itemIndex, DEFAULT_OUTCOME_LINE) ?? '',
	);
	const line = outcomeLine(template, outcomeOf(result, new Date()), context.getTimezone());
	return await updateRequestMessage(
		context,
		sent.id,
		updatedRequestText(requestText, line),
		options,
	);
}

/** The wait's result, with `requestUpdate` when Update Request Message is on. */
export async function withRequestUpdate(
	context: IExecuteFunctions,
	itemIndex: number,
	options: RequestOptions,
	sent: ListedMessage,
	requestText: string,
	result: IDataObject,
): Promise<IDataObject> {
	const requestUpdate = await requestUpdateOf(
		context,
		itemIndex,
		options,
		sent,
		requestText,
		result,
	);
	return requestUpdate ? { ...result, requestUpdate } : result;
}

/**
 * On Timeout = Fail: the request message edited when Update Request Message is on, then the node's error,
 * which says how the edit went (there is no output to carry `requestUpdate`).
 */
export async function timeoutFailure(
	context: IExecuteFunctions,
	itemIndex: number,
	options: RequestOptions,
	sent: ListedMessage,
	settings: Pick<ReplySettings, 'approval' | 'timeoutMs' | 'conversationId' | 'text'>,
): Promise<NodeOperationError> {
	const update = await requestUpdateOf(context, itemIndex, options, sent, settings.text, undefined);
	const edit = !update
		? ''
		: update.updated === true
			? ' The request message was edited to say so.'
			: ` The request message could not be edited: ${String(update.error)}.`;
	return new NodeOperationError(
		context.getNode(),
		`No ${settings.approval ? 'decision' : 'reply'} came within ${settings.timeoutMs / 1000} s${itemSuffix(context, itemIndex)}`,
		{
			itemIndex,
			description: `The message ${sent.id} was sent to ${settings.conversationId}; set "On Timeout" to output the item instead.${edit}`,
		},
	);
}
