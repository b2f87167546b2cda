/** The parameters of Send and Wait for Reply, every one checked before anything is sent. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { getRequiredId, inputError } from '../helpers/parameters';
import { getMessageText } from './conversation';
import { compileLinearPattern, type TextPattern } from './linearPattern';

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
}

/** Every parameter checked before anything is sent. */
export function readReplySettings(context: IExecuteFunctions, itemIndex: number): ReplySettings {
	const conversationId = getRequiredId(context, 'conversationId', itemIndex, 'Conversation');
	const text = getMessageText(context, itemIndex);
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
	let pattern: TextPattern | undefined;
	if (patternSource !== '') {
		const compiled = compileLinearPattern(patternSource);
		if ('problem' in compiled)
			throw inputError(context, itemIndex, 'Reply Must Match', compiled.problem);
		pattern = compiled;
	}
	return {
		conversationId,
		text,
		timeoutMs: timeout * 1000,
		intervalMs: Math.min(interval, timeout) * 1000,
		onTimeout,
		fromContact: fromContact || undefined,
		pattern,
	};
}
