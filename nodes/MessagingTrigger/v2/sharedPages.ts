/**
 * Pages that version 2's checks on one account read at about the same time are asked for once: a page
 * request (listing, query, cursor and size) that another check of the account has in flight, or that
 * was answered less than FRESH_MS ago, gets that answer. Each check still walks from its own state and
 * decides alone. A check is only served answers asked for after its trigger's previous check ended, so
 * it never reads the service older than it did before; failures are not kept (only those already
 * waiting for the request share its failure). docs/exactly-once.md#many-triggers-on-one-account
 */
import type { ListQuery, PageFetcher } from '../../shared/paginate';

/**
 * How long an answer serves the checks that ask for the same page after it came, unless the caller
 * says: half the account's tick, at most 10 s (accountOptions), as a tick's checks reach their requests
 * over a while on a busy n8n.
 */
export const FRESH_MS = 1_000;

export type Page = Awaited<ReturnType<PageFetcher>>;

/** What a check lists through: the fetcher of `collection`'s pages, shared with the other checks. */
export type PageShare = (
	collection: 'messages' | 'conversations',
	query: ListQuery,
	fetchPage: PageFetcher,
) => PageFetcher;

interface Entry {
	answer: Promise<Page>;
	/** Requests asked for before it, this one included (orders requests and readers without a clock). */
	order: number;
	answeredAt?: number;
	freshMs: number;
	/** Its asker stopped: its failure is its own, not the service's answer. */
	abandoned: () => boolean;
}

/** Pure apart from the requests it is handed; time passed in. */
export class PageSharer {
	private readonly entries = new Map<string, Entry>();
	private asked = 0;
	/**
	 * Per reader (a trigger: its workflow and node, so that a new activation goes on from the last):
	 * requests asked for when its last check ended; kept while answers asked for before it are.
	 */
	private readonly readUpTo = new Map<string, number>();
	/** Requests made, and pages served from another's request (for tests and the bench). */
	readonly stats = { requests: 0, shared: 0 };

	constructor(
		private readonly now: () => number = () => Date.now(),
		private readonly freshMs = FRESH_MS,
	) {}

	/** `reader` ended a check: its next ones read only answers asked for from now on. */
	checked(reader: string): void {
		this.readUpTo.set(reader, this.asked);
	}

	/**
	 * The page `key` for `reader`: the answer of a request in flight or fresh that was asked for after
	 * the reader's last check ended, else `request()`'s. What is returned is the reader's own copy.
	 */
	async page(
		reader: string,
		key: string,
		request: () => Promise<Page>,
		abandoned: () => boolean = () => false,
		freshMs = this.freshMs,
	): Promise<Page> {
		this.forgetStale();
		const entry = this.entries.get(key);
		if (entry && entry.order > (this.readUpTo.get(reader) ?? 0)) {
			this.stats.shared += 1;
			// Its asker stopped: this reader asks again, with the others it was waiting with (the failed
			// request is forgotten by then); any other failure is the service's answer, theirs too.
			const shared = await entry.answer.then(
				(page) => ({ page }),
				async (error: unknown) => (entry.abandoned() ? undefined : await Promise.reject(error)),
			);
			if (shared) return copyOf(shared.page);
			this.stats.shared -= 1;
			return await this.page(reader, key, request, abandoned, freshMs);
		}
		const own: Entry = { answer: request(), order: ++this.asked, abandoned, freshMs };
		this.stats.requests += 1;
		this.entries.set(key, own);
		own.answer.then(
			() => (own.answeredAt = this.now()),
			() => this.entries.get(key) === own && this.entries.delete(key),
		);
		return copyOf(await own.answer);
	}

	/** Answers and readers kept (for the tests of their bound). */
	get size(): { entries: number; readers: number } {
		return { entries: this.entries.size, readers: this.readUpTo.size };
	}

	/** Forgets stale answers, and the readers whose mark no answer kept predates (they read them all). */
	private forgetStale(): void {
		const now = this.now();
		let oldest = this.asked + 1;
		for (const [key, { answeredAt, order, freshMs }] of this.entries) {
			if (answeredAt !== undefined && now - answeredAt > freshMs) this.entries.delete(key);
			else oldest = Math.min(oldest, order);
		}
		for (const [reader, mark] of this.readUpTo) if (mark < oldest) this.readUpTo.delete(reader);
	}
}

/** Each reader gets its own records: nothing one trigger does to them reaches another. */
function copyOf(page: Page): Page {
	return { ...page, data: structuredClone(page.data) };
}

/** The process's shared pages, for every activation of version 2. */
export const sharedPages = new PageSharer();

/**
 * The PageShare of one check of `reader` (readerOf): `listing` names the account and its Base URL (a hash and
 * the URL: the token is not kept); `stop` is the activation's, so that a stopped asker's failure
 * does not fail the others; `freshMs`, how long the answers it asks for serve the others.
 */
export function shareOf(
	listing: string,
	reader: string,
	stop?: AbortSignal,
	freshMs?: number,
): PageShare {
	return (collection, query, fetchPage) => async (cursor, limit) =>
		await sharedPages.page(
			reader,
			[listing, collection, JSON.stringify(query), cursor ?? '', limit].join('\n'),
			async () => await fetchPage(cursor, limit),
			() => stop?.aborted === true,
			freshMs,
		);
}

/** A trigger as a reader of shared pages: its workflow and node, the same in each of its activations. */
export function readerOf(context: {
	getWorkflow(): { id?: string };
	getNode(): { id: string };
}): string {
	return `${context.getWorkflow().id ?? ''}\n${context.getNode().id}`;
}
