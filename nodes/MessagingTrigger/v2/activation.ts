/**
 * One activation of version 2: its settings, and what every request of its checks runs with (the
 * activation's stop, and the pace its account shares with the other triggers of this process).
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import type { MessagingCredentials, RequestContext, RequestOptions } from '../../shared/transport';
import type { TriggerOptions } from '../options';
import { accountKey, sharedPaces } from './sharedPace';

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
 * this process. A request that gives up fails its own check only: no other trigger's check stops.
 */
export function sharedPaceOptions(
	credentials: MessagingCredentials,
	member: object,
	intervalMs: number,
): RequestOptions {
	const key = accountKey(String(credentials.baseUrl ?? ''), String(credentials.accessToken ?? ''));
	return { pacer: sharedPaces.pacerFor(key, member, intervalMs), throughRefusal: true };
}
