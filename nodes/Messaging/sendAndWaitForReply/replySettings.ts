/** The parameters of Send and Wait for Reply, every one checked before anything is sent. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { getRequiredId, listEntries } from '../helpers/parameters';
import { inputError } from '../../shared/inputError';
import { getMessageText } from '../helpers/reviewRequest';
import { formattedText } from '../descriptions/chatText';
import { compileLinearPattern, type TextPattern } from './linearPattern';
import { checkApprovalRules, type ApprovalRules } from './approval';

/** One hour: the execution waits in memory, holding one of n8n's execution slots, and a restart ends it. */
export const MAX_REPLY_TIMEOUT_SECONDS = 3600;

export interface ReplySettings {
	conversationId: string;
	text: string;
	timeoutMs: number;
	intervalMs: number;
	onTimeout: 'output' | 'error';
	fromContact?: string;
	pattern?: TextPattern;
	/** Approval in the chat (by reaction or keyword) instead of a reply. */
	approval?: ApprovalRules;
}

/** Every parameter checked before anything is sent. */
export function readReplySettings(context: IExecuteFunctions, itemIndex: number): ReplySettings {
	const conversationId = getRequiredId(context, 'conversationId', itemIndex, 'Conversation');
	const text = formattedText(context, itemIndex, getMessageText(context, itemIndex));
	const timeout = Number(context.getNodeParameter('replyTimeout', itemIndex, 300));
	if (!Number.isFinite(timeout) || timeout <= 0) {
		throw inputError(
			context,
			itemIndex,
			'Wait for Reply (Seconds)',
			'must be a positive number of seconds',
		);
	}
	if (timeout > MAX_REPLY_TIMEOUT_SECONDS) {
		throw inputError(
			context,
			itemIndex,
			'Wait for Reply (Seconds)',
			`is ${timeout}, above the maximum of ${MAX_REPLY_TIMEOUT_SECONDS} (one hour): a waiting execution holds an n8n slot; use Send and Wait for Response for longer waits`,
		);
	}
	const interval = Number(context.getNodeParameter('checkInterval', itemIndex, 5));
	if (!Number.isFinite(interval) || interval <= 0) {
		throw inputError(
			context,
			itemIndex,
			'Check Every (Seconds)',
			'must be a positive number of seconds',
		);
	}
	const onTimeout =
		context.getNodeParameter('onTimeout', itemIndex, 'output') === 'error' ? 'error' : 'output';
	const fromContact = String(
		context.getNodeParameter('options.fromContact', itemIndex, '') ?? '',
	).trim();
	const patternSource = String(
		context.getNodeParameter('options.replyPattern', itemIndex, '') ?? '',
	);
	if (fromContact === '@')
		throw inputError(
			context,
			itemIndex,
			'Only From Contact',
			'has "@" without a username after it',
		);
	let pattern: TextPattern | undefined;
	if (patternSource !== '') {
		const compiled = compileLinearPattern(patternSource);
		if ('problem' in compiled)
			throw inputError(context, itemIndex, 'Reply Must Match', compiled.problem);
		pattern = compiled;
	}
	return {
		approval: readApprovalRules(context, itemIndex),
		conversationId,
		text,
		timeoutMs: timeout * 1000,
		intervalMs: Math.min(interval, timeout) * 1000,
		onTimeout,
		fromContact: fromContact || undefined,
		pattern,
	};
}

/** Response Type's approval settings, checked before anything is sent; undefined for Reply. */
function readApprovalRules(
	context: IExecuteFunctions,
	itemIndex: number,
): ApprovalRules | undefined {
	const responseType = context.getNodeParameter('responseType', itemIndex, 'reply');
	if (responseType !== 'approvalByReaction' && responseType !== 'approvalByKeyword')
		return undefined;
	const mode = responseType === 'approvalByReaction' ? 'reaction' : 'keyword';
	const list = (name: string, label: string, fallback: string) => {
		const raw = context.getNodeParameter(name, itemIndex, fallback);
		if (typeof raw !== 'string') throw inputError(context, itemIndex, label, 'must be text');
		const { entries, empty } = listEntries(raw);
		if (empty)
			throw inputError(
				context,
				itemIndex,
				label,
				`has an empty entry ("${raw}"): remove the extra comma`,
			);
		return entries;
	};
	const [approveName, declineName, approveLabel, declineLabel, approveDefault, declineDefault] =
		mode === 'reaction'
			? ['approveReaction', 'declineReaction', 'Approve Reaction', 'Decline Reaction', '+1', '-1']
			: ['approveWords', 'declineWords', 'Approve Words', 'Decline Words', 'approve', 'decline'];
	const rules: ApprovalRules = {
		mode,
		approvers: list('approvers', 'Approvers', ''),
		required: Number(context.getNodeParameter('approvalsRequired', itemIndex, 1)),
		approve: list(approveName, approveLabel, approveDefault),
		decline: list(declineName, declineLabel, declineDefault),
	};
	const problem = checkApprovalRules(rules);
	if (problem) throw inputError(context, itemIndex, problem.field, problem.problem);
	return rules;
}
