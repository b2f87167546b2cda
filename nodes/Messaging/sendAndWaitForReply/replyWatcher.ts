/**
 * Send and Wait for Reply: how each check reads the conversation (which message is the reply: replyMatch.ts).
 * Pure apart from the `fetchPage` it is given, so it is tested alone.
 *
 * "After the sent message" depends on the order of the service's list:
 * - newest first (this service): `starting_after=<sent id>` lists the messages *older* than the sent one.
 *   The new ones are above it, so a check reads from the top down to the sent message, paging on with
 *   `starting_after=<last id of the page>` while it has not reached it (more than one page of new messages).
 *   When nothing came, the sent message is the first of the first page: one request.
 * - oldest first: `starting_after=<sent id>` lists exactly the newer messages, paged on the same way.
 *   When nothing came, that page is empty: one request.
 * The order is read off the first page (timestamps around the sent message). When that page cannot tell
 * (all its messages share the sent message's timestamp), `probeOrder` may read it elsewhere (the account's
 * list); until some page shows it, newest first.
 */

import { listedMessages, type ListedMessage } from '../../shared/listedMessage';
import type { ListOrder, PageFetcher } from '../../shared/paginate';
import { orderShownBy } from './pageOrder';
import { isReply, olderThan, type ReplyFilter } from './replyMatch';

/** Messages read per request while checking for the reply. */
export const CHECK_PAGE_SIZE = 50;

/** Most pages one check reads (a burst of messages between two checks larger than this is read over several). */
export const MAX_REPLY_PAGES_PER_CHECK = 20;

interface ChatPage {
	messages: ListedMessage[];
	hasMore: boolean;
}

/** Whether the sent message still exists (one request): false when the service says it is gone,
 * undefined when it did not say (a 429, a 5xx). */
export type SentExists = () => Promise<boolean | undefined>;

/** Why a wait cannot go on, said plainly instead of a service's error or a silent time-out. */
export class WaitProblem extends Error {}

/** A call's value, or the error it failed with. */
export async function outcomeOf<T>(
	promise: Promise<T>,
): Promise<{ value: T } | { error: unknown }> {
	return await promise.then(
		(value) => ({ value }),
		(error: unknown) => ({ error }),
	);
}

/** A refusal of a `starting_after` cursor: the object it names may be gone. */
function refusedCursor(error: unknown): boolean {
	return ['400', '404', '410', '422'].includes(String((error as { httpCode?: unknown }).httpCode));
}

/** Another list of the same service whose neighbours may show the order (one request). */
export type ProbeOrder = () => Promise<ListedMessage[]>;

/**
 * One per waiting item. `check()` reads what came since the sent message and returns the first reply
 * (the oldest matching message), or undefined. Messages already examined are not returned twice.
 */
export class ReplyWatcher {
	private order: ListOrder | undefined;

	private readonly examined = new Set<string>();

	/** Requests made, for the caller's figures. */
	requests = 0;

	constructor(
		private readonly sent: ListedMessage,
		private readonly filter: ReplyFilter,
		private readonly fetchPage: PageFetcher,
		private readonly probeOrder?: ProbeOrder,
		private readonly sentExists?: SentExists,
	) {}

	/** Set once the sent message was confirmed to exist while the list did not show it. */
	private sentConfirmed = false;

	/** The sent message did not show where it should: asks whether it was deleted (once while it exists). */
	private async failIfDeleted(): Promise<void> {
		if (!this.sentExists || this.sentConfirmed) return;
		this.requests += 1;
		const exists = await this.sentExists();
		if (exists !== false) {
			this.sentConfirmed = exists === true;
			return;
		}
		throw new WaitProblem(`The message ${this.sent.id} was deleted during the wait`);
	}

	private probed = false;

	get listOrder(): ListOrder | undefined {
		return this.order;
	}

	/** The first reply since the last check, or undefined. */
	async check(): Promise<ListedMessage | undefined> {
		return this.newReplies(await this.read(), 1)[0];
	}

	/** Every reply since the last check, oldest first. */
	async checkAll(): Promise<ListedMessage[]> {
		return this.newReplies(await this.read(), Infinity);
	}

	/** What came after the sent message, oldest first. */
	private async read(): Promise<ListedMessage[]> {
		if (this.order !== 'oldest_first') {
			const fromTop = await this.readFromTop();
			if (fromTop !== 'order changed') return fromTop.reverse();
		}
		return await this.readAfterSent();
	}

	private async page(cursor: string | undefined): Promise<ChatPage> {
		this.requests += 1;
		const page = await this.fetchPage(cursor, CHECK_PAGE_SIZE);
		return { messages: listedMessages(page.data), hasMore: page.hasMore };
	}

	/** Newest first: the messages above the sent one, newest first. */
	private async readFromTop(): Promise<ListedMessage[] | 'order changed'> {
		const above: ListedMessage[] = [];
		let cursor: string | undefined;
		for (let pages = 0; pages < MAX_REPLY_PAGES_PER_CHECK; pages++) {
			const { messages, hasMore } = await this.page(cursor);
			this.order ??= orderShownBy(messages, this.sent, cursor === undefined);
			if (
				this.order === undefined &&
				!this.probed &&
				this.probeOrder &&
				messages.some((m) => m.id !== this.sent.id)
			) {
				// Messages beside the sent one, all from the same instant: above or below it means newer or older.
				this.probed = true;
				this.requests += 1;
				this.order = orderShownBy(await this.probeOrder(), this.sent, false);
			}
			if (this.order === 'oldest_first') return 'order changed';
			for (const message of messages) {
				if (message.id === this.sent.id) return above;
				// Past where the sent message would be: it may have been deleted.
				if (olderThan(message, this.sent) && !this.sentConfirmed) await this.failIfDeleted();
				above.push(message);
			}
			const last = messages[messages.length - 1];
			// The end of the list, or a service that does not page on: what was read is all there is.
			if (!hasMore || !last || last.id === cursor) {
				await this.failIfDeleted();
				return above;
			}
			cursor = last.id;
		}
		await this.failIfDeleted();
		return above;
	}

	/** Oldest first: the messages after the sent one, oldest first. */
	private async readAfterSent(): Promise<ListedMessage[]> {
		const after: ListedMessage[] = [];
		let cursor = this.sent.id;
		for (let pages = 0; pages < MAX_REPLY_PAGES_PER_CHECK; pages++) {
			const answer = await outcomeOf(this.page(cursor));
			if ('error' in answer) {
				// The cursor is the sent message: a service refusing it may mean it was deleted.
				if (cursor === this.sent.id && refusedCursor(answer.error)) await this.failIfDeleted();
				throw answer.error;
			}
			const { messages, hasMore } = answer.value;
			if (cursor === this.sent.id && hasMore && this.cursorIgnored(messages)) {
				throw new WaitProblem(
					`The Messaging service ignores starting_after: asked for the messages after ${this.sent.id}, it answered with older ones, and the conversation is longer than one page, so a reply cannot be read`,
				);
			}
			after.push(...messages);
			const last = messages[messages.length - 1];
			if (!hasMore || !last || last.id === cursor) break;
			cursor = last.id;
		}
		return after;
	}

	/** A page "after the sent message" holding it, or older messages: the service read the list from its start. */
	private cursorIgnored(messages: ListedMessage[]): boolean {
		return messages.some((m) => m.id === this.sent.id || olderThan(m, this.sent));
	}

	/** Up to `limit` replies of `oldestFirst` not examined before; the messages after the last are left for later. */
	private newReplies(oldestFirst: ListedMessage[], limit: number): ListedMessage[] {
		const replies: ListedMessage[] = [];
		for (const message of oldestFirst) {
			if (replies.length >= limit) break;
			if (typeof message?.id !== 'string' || this.examined.has(message.id)) continue;
			this.examined.add(message.id);
			if (isReply(message, this.sent, this.filter)) replies.push(message);
		}
		return replies;
	}
}
