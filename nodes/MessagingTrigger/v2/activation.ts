/**
 * One activation of version 2: its settings, and what every request of its checks runs with (the
 * activation's stop, the pace its account shares with the other triggers of this process, and the
 * pages they read together).
 */
import type { ICredentialDataDecryptedObject, ITriggerFunctions } from 'n8n-workflow';

import {
	CREDENTIAL_TYPE,
	getMessagingCredentials,
	useCredentialData,
	type MessagingCredentials,
	type RequestContext,
	type RequestOptions,
} from '../../shared/transport';
import type { AccountPageUse } from '../accountPage';
import { watchesMessages } from '../events/settings';
import type { TriggerOptions } from '../options';
import type { ListOrder } from '../../shared/paginate';
import { accountKey, sharedPaces } from './sharedPace';
import { FRESH_MS, readerOf, shareOf, sharedPages, type PageShare } from './sharedPages';

export interface ActivationSettings {
	intervalMs: number;
	options: TriggerOptions;
	/** Tests only: a shorter cap on attempts or pages. */
	maxAttempts?: number;
	/** Tests only: how long a stop waits for executions in flight. */
	stopWaitMs?: number;
}

/**
 * How long an activation's checks use the credential it read: n8n 2.40 builds an expression isolate at
 * each read, most of an idle check's CPU (docs/trigger.md). An edit takes effect within this.
 */
export const CREDENTIAL_REUSE_MS = 60_000;

/** The credential of an activation's checks: read again once CREDENTIAL_REUSE_MS old, and after a failed check. */
export class ActivationCredential {
	private read: { data: Promise<ICredentialDataDecryptedObject>; at: number } | undefined;

	of(context: ITriggerFunctions, now = Date.now()): Promise<ICredentialDataDecryptedObject> {
		if (!this.read || now - this.read.at >= CREDENTIAL_REUSE_MS) {
			const data = context.getCredentials(CREDENTIAL_TYPE);
			this.read = { data, at: now };
			data.catch(() => this.read?.data === data && this.forget());
		}
		return this.read.data;
	}

	forget(): void {
		this.read = undefined;
	}
}

/**
 * What a check knows of its activation: its stop's signal (which ends the check's waits), what stands for
 * it among the triggers sharing its account's pace, and its credential.
 */
export interface ActivationHandle {
	signal?: AbortSignal;
	member?: object;
	credential?: ActivationCredential;
}

/** A context per check (its requests end when the activation stops), with the activation's credential. */
function checkContext(
	context: ITriggerFunctions,
	stop?: AbortSignal,
	credential?: ActivationCredential,
): RequestContext {
	const perCheck = Object.create(context) as RequestContext;
	if (credential) useCredentialData(perCheck, credential.of(context));
	// The transport ends its waits (a turn of the shared pace, a retry) when this aborts: a stop.
	if (stop) Object.defineProperty(perCheck, 'getExecutionCancelSignal', { value: () => stop });
	return perCheck;
}

/** A tick's checks of 100 triggers start within 0.2 s (BENCHMARKS.md): longer-lived answers would only be staler. */
const MAX_SHARE_MS = 10_000;

/**
 * Half the tick of `member`'s account, at most MAX_SHARE_MS: its answers serve the tick's checks that ask
 * late, none of the next tick's.
 */
function halfTick(member: object): number | undefined {
	const tick = sharedPaces.tickOf(member);
	return tick === undefined ? undefined : Math.min(MAX_SHARE_MS, Math.max(FRESH_MS, tick / 2));
}

/** Account pages a check reads at most in place of its conversation's listing. */
export const MAX_ACCOUNT_PAGES = 10;

/** Deleted messages an activation remembers; past it, the oldest are forgotten. */
const GONE_KEPT = 100;

/**
 * Per activation: whether the account's listing proved not to hold its conversation whole, what was
 * deleted, how the service writes the conversation's ID.
 */
const readings = new WeakMap<
	object,
	{ distrusted: boolean; gone: Set<string>; listedAs?: string }
>();

/**
 * Every request of a check takes its turn in the pace its account shares with the other triggers of
 * this process, and its pages are read once for all of them (sharedPages.ts). A request that gives up
 * fails its own check only, and the checks that shared it: no other trigger's check stops.
 */
export function accountOptions(
	context: ITriggerFunctions,
	credentials: MessagingCredentials,
	settings: ActivationSettings,
	{ member, signal, order }: { member: object; signal?: AbortSignal; order?: ListOrder },
): { requests: RequestOptions; sharePages: PageShare; accountPage?: AccountPageUse } {
	const baseUrl = String(credentials.baseUrl ?? '').trim();
	const key = accountKey(baseUrl, String(credentials.accessToken ?? ''));
	// Checks reading the same pages go on one tick, and triggers on one conversation of a newest-first
	// service on the account listing's tick (they may read its first page); the others keep apart.
	const { conversationId, pageSize, events } = settings.options;
	const onAccountPage =
		conversationId !== '' && order === 'newest_first' && !watchesMessages(events);
	const listing = JSON.stringify([baseUrl, onAccountPage ? '' : conversationId, pageSize]);
	const pacer = sharedPaces.pacerFor(key, member, settings.intervalMs, listing);
	let reading = readings.get(member);
	if (!reading) readings.set(member, (reading = { distrusted: false, gone: new Set() }));
	const { gone } = reading;
	const accountPage: AccountPageUse | undefined = onAccountPage
		? {
				pages: reading.distrusted
					? 0
					: Math.min(MAX_ACCOUNT_PAGES, sharedPaces.together(member) - 1),
				gone,
				deleted: (ids) => {
					for (const id of ids) gone.add(id);
					for (const id of gone) if (gone.size > GONE_KEPT) gone.delete(id);
				},
				distrust: (reason) => {
					reading.distrusted = true;
					context.logger.info(
						`Messaging Trigger: the account's listing is not used for this conversation any more (${reason})`,
					);
				},
				listedAs: reading.listedAs,
				seenAs: (id) => (reading.listedAs = id),
				readNewer: () => sharedPages.checked(readerOf(context)),
			}
		: undefined;
	return {
		requests: { pacer, throughRefusal: true },
		sharePages: shareOf(`${key}\n${baseUrl}`, readerOf(context), signal, halfTick(member)),
		accountPage,
	};
}

/** What one check runs with: its context, the activation's credential, its account's shared pace and pages. */
export async function checkSetup(
	context: ITriggerFunctions,
	settings: ActivationSettings,
	activation: ActivationHandle & { member: object; order?: ListOrder },
): Promise<{
	context: RequestContext;
	credentials: MessagingCredentials;
	account: ReturnType<typeof accountOptions>;
}> {
	const perCheck = checkContext(context, activation.signal, activation.credential);
	const credentials = await getMessagingCredentials.call(perCheck);
	return {
		context: perCheck,
		credentials,
		account: accountOptions(context, credentials, settings, activation),
	};
}
