/**
 * A check of a trigger on one conversation, read from the top pages of the account's listing (every
 * conversation) that the account's other triggers read on the same tick (v2/sharedPages.ts), instead of
 * from its conversation's own listing. Taken only when fewer pages than the triggers sharing them hold
 * every message of the conversation the check may not know yet; otherwise the check lists its own.
 * docs/exactly-once.md#many-triggers-on-one-account
 */
import type { IDataObject } from 'n8n-workflow';

import { idText } from '../shared/ids';
import { countOrder } from '../shared/listOrder';
import { walkPages, type PageFetcher } from '../shared/paginate';
import {
	CursorGone,
	isBadCursorError,
	statusOf,
	type Listing,
	type ListingSettings,
} from './listing';
import { clockAt, firstServiceTime, inUnit, serviceUnit } from './serviceClock';
import { triggerMessagesOf, type TriggerMessage, type TriggerState } from './triggerState';
import { reachedKnownHistory } from './watermark';

/**
 * The conversation's listing, or why the account's pages could not stand for it: `distrust` when the
 * account's listing is unfit for good; `missing`, known messages of the conversation it left out (deleted
 * since, or listed apart by this service: the conversation's own listing tells). `accountSeen`: the top
 * of the account's listing when it was read, kept either way (the next read may stop there).
 */
export type AccountPageReading =
	| Listing
	| {
			declined: string;
			distrust?: boolean;
			missing?: string[];
			accountSeen?: TriggerState['accountSeen'];
	  };

/** What a check of a trigger on one conversation may read from the account's listing (v2/activation.ts). */
export interface AccountPageUse {
	/**
	 * The account's pages it may read (0: none): fewer than the triggers that check on its tick, which
	 * read them together, and none once the account's listing proved unfit.
	 */
	pages: number;
	/** Known messages of its conversation found deleted: the account's pages need not show them. */
	gone: ReadonlySet<string>;
	/** They were: remembered for this activation. */
	deleted(ids: string[]): void;
	/** The account's listing left out a message of this conversation: its checks list their own from now on. */
	distrust(reason: string): void;
	/**
	 * The conversation's ID as its own listing wrote it in this activation, by which its messages are
	 * picked from the account's pages (a service may take `ABC` for `abc`); undefined until seen.
	 */
	listedAs: string | undefined;
	seenAs(id: string): void;
	/** The check's next requests are served only answers asked for from now on (not older than the account's pages). */
	readNewer(): void;
}

/** Ids kept of the top of the account's listing. */
export const ACCOUNT_SEEN_KEPT = 20;

/**
 * Where a read of the account's pages may stop: at the top of the account's listing as last read, and
 * once past the look-back window below the newest message seen there, so that a late message is caught
 * as by a trigger on every conversation. The first time, where the conversation's own listing would.
 */
export function accountStopLine(
	state: TriggerState,
	settings: Pick<ListingSettings, 'lookBackSeconds' | 'nowMs'>,
): Pick<TriggerState, 'settledThrough' | 'recent'> {
	const seen = state.accountSeen;
	if (!seen?.length) return state;
	const now = clockAt(state.unit, settings.nowMs).now;
	const newest = Math.max(...seen.map(([, createdAt]) => createdAt).filter((at) => at <= now));
	const trailing = newest - inUnit(settings.lookBackSeconds, state.unit) - 1;
	return {
		settledThrough: Number.isFinite(trailing)
			? Math.max(trailing, state.settledThrough ?? -Infinity)
			: state.settledThrough,
		recent: seen,
	};
}

/**
 * The conversation's listing as the top pages of the account's (`accountPages`, at most `pages`),
 * when the state's order is newest first with no backlog being read in segments, those pages show
 * newest first too, and they reach known history (accountStopLine, by watermark.ts's reachedKnownHistory),
 * with every message of the conversation the trigger knows from that span of time on them (but those
 * found deleted, `gone`).
 */
export async function listFromAccountPage(
	accountPages: PageFetcher,
	state: TriggerState | null,
	conversationId: string,
	settings: Pick<ListingSettings, 'pageSize' | 'unitSetting' | 'nowMs' | 'lookBackSeconds'>,
	{ pages: maxPages, gone = new Set() }: { pages: number; gone?: ReadonlySet<string> },
): Promise<AccountPageReading> {
	if (!state || state.order !== 'newest_first' || state.settledThrough === null)
		return { declined: 'the order of its listing is not known yet' };
	if (state.resume?.length || state.stopAt !== undefined)
		return { declined: 'a backlog is being read' };
	const { fetchPage, serviceTimeMs } = firstServiceTime(
		async (cursor, limit) =>
			await accountPages(cursor, limit).catch((error: unknown) => {
				// Below the first page, a cursor whose message was deleted meanwhile: no refusal of the listing.
				throw cursor !== undefined && isBadCursorError(error) ? new CursorGone() : error;
			}),
	);
	let stopLine: ReturnType<typeof accountStopLine> | undefined;
	const records: IDataObject[] = [];
	const all: TriggerMessage[] = [];
	let evidence = { rising: 0, falling: 0 };
	let more: string | undefined;
	let reached = false;
	// Pages read together on the tick cost one request each, whoever reads them.
	for await (const page of walkPages(fetchPage, { pageSize: settings.pageSize, maxPages })) {
		if (page.records.some((r) => idText(r.conversation_id) === undefined))
			return { declined: 'its messages do not name their conversation', distrust: true };
		records.push(...page.records);
		const messages = triggerMessagesOf(page.records);
		evidence = countOrder(messages, all[all.length - 1], evidence);
		all.push(...messages);
		if (evidence.rising > 0)
			return { declined: 'the account listing is not newest first', distrust: true };
		// A service that ignored the cursor: what lies below the first page was not read.
		if (page.stalled) return { declined: 'the account listing did not page further' };
		more = page.next;
		// On the service's clock, as the watermark is: a message dated ahead of it does not raise the line.
		stopLine ??= accountStopLine(state, { ...settings, nowMs: serviceTimeMs() ?? settings.nowMs });
		reached = !more || reachedKnownHistory(stopLine, messages, true);
		if (reached) break;
	}
	const accountSeen = all
		.slice(0, ACCOUNT_SEEN_KEPT)
		.map((m): [string, number] => [m.id, m.created_at])
		.reverse();
	if (!reached)
		return { declined: `more than ${maxPages} page(s) to read on the account`, accountSeen };
	const onPages = new Set(all.map((m) => m.id));
	const oldest = more ? (all[all.length - 1]?.created_at ?? Infinity) : -Infinity;
	const missing = state.recent
		.filter(([id, createdAt]) => createdAt > oldest && !onPages.has(id) && !gone.has(id))
		.map(([id]) => id);
	if (missing.length > 0) return { declined: 'known messages are not on it', missing };
	const known = new Set(state.recent.map(([id]) => id));
	if (
		records.some(
			(r) => known.has(idText(r.id) ?? '') && idText(r.conversation_id) !== conversationId,
		)
	)
		return { declined: 'it writes the conversation’s ID otherwise', distrust: true };

	const own = records.filter((r) => idText(r.conversation_id) === conversationId);
	const listed = triggerMessagesOf(own);
	const unit = serviceUnit(settings.unitSetting, state, listed);
	return {
		from: state,
		listed,
		evidence: countOrder(listed, undefined, { rising: 0, falling: 0 }),
		finished: 'complete',
		exhausted: !more,
		stalled: false,
		pages: 1,
		lastId: idText(own[own.length - 1]?.id),
		serviceTimeMs: serviceTimeMs(),
		clock: clockAt(unit, serviceTimeMs() ?? settings.nowMs),
		accountSeen,
	};
}

/**
 * The conversation's listing read from the account's top pages when they hold it, else its own;
 * a known message the account's page left out that the conversation's own listing still has makes the
 * trigger stop reading the account's page, as does a refusal of the account's listing.
 */
export async function listConversation(
	accountPages: PageFetcher,
	stored: TriggerState | null,
	settings: Pick<ListingSettings, 'pageSize' | 'unitSetting' | 'nowMs' | 'lookBackSeconds'> & {
		conversationId: string;
		accountPage: AccountPageUse;
		ownListing: () => Promise<Listing>;
	},
): Promise<Listing> {
	const use = settings.accountPage;
	const read: AccountPageReading =
		use.listedAs === undefined
			? { declined: 'the conversation’s ID as its listing writes it is not known yet' }
			: await listFromAccountPage(accountPages, stored, use.listedAs, settings, use).catch(
					refusedListing,
				);
	if (!('declined' in read)) return read;
	// The top of the account's pages is stored with what the own listing finds: that must not be older.
	if (read.accountSeen) use.readNewer();
	const own = await settings.ownListing();
	const listed = new Set(own.listed.map((m) => m.id));
	const missing = read.missing ?? [];
	const spellings = new Set(own.listed.flatMap((m) => idText(m.conversation_id) ?? []));
	if (read.distrust || missing.some((id) => listed.has(id)) || spellings.size > 1)
		use.distrust(spellings.size > 1 ? 'its own listing names other conversations' : read.declined);
	else if (own.finished === 'complete' && missing.length > 0) use.deleted(missing);
	if (spellings.size === 1) use.seenAs([...spellings][0]);
	// Its own listing covers what the account's pages did not: the next read of them may stop at their top.
	return read.accountSeen ? { ...own, accountSeen: read.accountSeen } : own;
}

/** A refusal of the account's listing (not of the token, nor a limit): the conversation's own may be allowed. */
function refusedListing(error: unknown): AccountPageReading {
	if (error instanceof CursorGone) return { declined: 'a cursor below its first page was refused' };
	const status = Number(statusOf(error));
	if (status >= 400 && status < 500 && ![401, 408, 429].includes(status))
		return { declined: `the service refused the account's listing (${status})`, distrust: true };
	throw error;
}
