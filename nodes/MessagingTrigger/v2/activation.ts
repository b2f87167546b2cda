/**
 * One activation of version 2: its settings, and what every request of its checks runs with (the
 * activation's stop, the pace its account shares with the other triggers of this process, and the
 * pages they read together).
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import type { MessagingCredentials, RequestContext, RequestOptions } from '../../shared/transport';
import type { TriggerOptions } from '../options';
import { accountKey, sharedPaces } from './sharedPace';
import { readerOf, shareOf, type PageShare } from './sharedPages';

export interface ActivationSettings {
	intervalMs: number;
	options: TriggerOptions;
	/** Tests only: a shorter cap on attempts or pages. */
	maxAttempts?: number;
	/** Tests only: how long a stop waits for executions in flight. */
	stopWaitMs?: number;
}

/** A context per check, so the credential is read again at each check (edits take effect). */
export function checkContext(context: ITriggerFunctions, stop?: AbortSignal): RequestContext {
	const perCheck = Object.create(context) as RequestContext;
	// The transport ends its waits (a turn of the shared pace, a retry) when this aborts: a stop.
	if (stop) Object.defineProperty(perCheck, 'getExecutionCancelSignal', { value: () => stop });
	return perCheck;
}

/**
 * Every request of a check takes its turn in the pace its account shares with the other triggers of
 * this process, and its pages are read once for all of them (sharedPages.ts). A request that gives up
 * fails its own check only, and the checks that shared it: no other trigger's check stops.
 */
export function accountOptions(
	context: ITriggerFunctions,
	credentials: MessagingCredentials,
	settings: ActivationSettings,
	{ member, stop }: { member: object; stop?: AbortSignal },
): { requests: RequestOptions; sharePages: PageShare } {
	const baseUrl = String(credentials.baseUrl ?? '').trim();
	const key = accountKey(baseUrl, String(credentials.accessToken ?? ''));
	// Checks reading the same pages go on one tick; the others keep apart.
	const { conversationId, pageSize } = settings.options;
	const listing = JSON.stringify([baseUrl, conversationId, pageSize]);
	const pacer = sharedPaces.pacerFor(key, member, settings.intervalMs, listing);
	return {
		requests: { pacer, throughRefusal: true },
		sharePages: shareOf(`${key}\n${baseUrl}`, readerOf(context), stop),
	};
}
