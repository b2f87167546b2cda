/**
 * One check of the trigger, for both versions: every listing and own-contact lookup first, then the
 * pure plan (plan.ts). Reads only; the caller stores `nextState` and emits the items of `decisions`
 * (deliveryItems.ts), built with `output`.
 */
import {
	serviceMessageExists,
	servicePages,
	walkPages,
	type ListQuery,
	type PageFetcher,
} from '../../shared/paginate';
import type { TimestampUnitSetting } from '../../shared/timestamps';
import type { RequestContext, RequestOptions } from '../../shared/transport';
import { listConversation, type AccountPageUse } from '../accountPage';
import { listSince, type Listing } from '../listing';
import { listQuery, type TriggerOptions } from '../options';
import type { MessageOutputSettings } from '../output';
import { learnOwnContact, type KnownConversations } from '../ownContact';
import { plan, type CheckListing, type Plan, type PlanSettings } from '../plan';
import { triggerMessagesOf, type TriggerMessage, type TriggerState } from '../triggerState';
import { watchesMessages } from './settings';

export interface CheckSettings {
	/** The events are `options.events` (version 1: New Message only). */
	options: TriggerOptions;
	unitSetting: TimestampUnitSetting;
	/** The credential's "Your Contact ID". */
	configuredOwn?: string;
	/** Deliveries this check may add at most (undefined: no limit). */
	room?: number;
	/** The local clock (ms) at the check's start. */
	nowMs: number;
	/** Options of every request of the check (version 2: the account's shared pace). */
	requests?: RequestOptions;
	/**
	 * Version 2: the fetcher of a listing's pages, read once with the other triggers on the account
	 * (v2/sharedPages.ts); without it each page is asked for.
	 */
	sharePages?: (
		collection: 'messages' | 'conversations',
		query: ListQuery,
		fetchPage: PageFetcher,
	) => PageFetcher;
	/** Version 2 on one conversation: whether its check may read the account's first page (accountPage.ts). */
	accountPage?: AccountPageUse;
	/** Conversations an activation looked up already (version 2), so they are not looked up again. */
	knownConversations?: KnownConversations;
}

function newestOf(messages: TriggerMessage[], size: number): TriggerMessage[] {
	return [...messages].sort((a, b) => b.created_at - a.created_at).slice(0, size);
}

/**
 * The watch window: the newest `size` messages. Taken from the check's own listing when it read the
 * top of a newest-first list far enough (no request), or when the service lists oldest first (then
 * only what the check read is seen); else the top of the list is read.
 */
async function watchWindow(
	fetchPage: PageFetcher,
	listing: Listing,
	size: number,
	pageSize: number,
): Promise<TriggerMessage[]> {
	const order = listing.from?.order;
	const fromTop = listing.start === undefined && !listing.from?.resume?.length;
	if (order === 'oldest_first' || (fromTop && (listing.listed.length >= size || listing.exhausted)))
		return newestOf(listing.listed, size);
	const top: TriggerMessage[] = [];
	const limit = Math.min(pageSize, size);
	for await (const page of walkPages(fetchPage, {
		pageSize: limit,
		maxPages: Math.ceil(size / limit),
	})) {
		top.push(...triggerMessagesOf(page.records));
		if (top.length >= size) break;
	}
	return newestOf(top, size);
}

/** A check's plan, and the output settings its items are built with (the own contact as learned). */
export interface CheckResult extends Plan {
	output: MessageOutputSettings;
}

export async function checkEvents(
	context: RequestContext,
	stored: TriggerState | null,
	settings: CheckSettings,
): Promise<CheckResult> {
	const { options, unitSetting, nowMs, requests = {} } = settings;
	const { events } = options;
	const share = settings.sharePages ?? ((_collection, _query, fetchPage) => fetchPage);
	const query = listQuery(options);
	const fetchPage = share('messages', query, servicePages(context, 'messages', query, requests));
	const listingSettings = { ...options, unitSetting, nowMs };
	const ownListing = async () =>
		await listSince(fetchPage, stored, {
			...listingSettings,
			messageExists: serviceMessageExists(context, requests),
		});
	const accountPage = settings.accountPage?.pages ? settings.accountPage : undefined;
	const messages = accountPage
		? await listConversation(
				share('messages', {}, servicePages(context, 'messages', {}, requests)),
				stored,
				{ ...listingSettings, accountPage, ownListing },
			)
		: await ownListing();
	const listing: CheckListing = { messages };
	if (events.events.includes('newConversation')) {
		listing.conversations = await listSince(
			share('conversations', {}, servicePages(context, 'conversations', {}, requests)),
			stored?.conversations ?? null,
			{ ...listingSettings, emitExisting: false },
		);
	}
	if (watchesMessages(events))
		listing.window = await watchWindow(fetchPage, messages, events.watchWindow, options.pageSize);

	const configured = settings.configuredOwn?.trim() || undefined;
	const own = configured ?? messages.from?.ownContactId;
	const planSettings: PlanSettings = {
		...options,
		own,
		ownConfigured: !!configured,
		room: settings.room,
	};
	const output = (contact: string | undefined): MessageOutputSettings => ({
		isoTimestamps: options.isoTimestamps,
		unitSetting,
		simplify: options.simplify,
		own: contact,
	});
	const first = plan(stored, listing, planSettings);
	if (!options.skipOwnMessages || own || first.ownCandidates.length === 0)
		return { ...first, output: output(own) };
	const learned = await learnOwnContact.call(
		context,
		first.ownCandidates,
		requests,
		settings.knownConversations,
	);
	if (!learned) return { ...first, output: output(own) };
	return { ...plan(stored, listing, { ...planSettings, own: learned }), output: output(learned) };
}
