/**
 * The checks of every version 2 trigger in this n8n process that use one account (the Base URL's
 * origin and the token) share one pace, and their scheduled checks are spread over the interval
 * instead of all going on the same tick. Keyed by a hash (the token is not kept), forgotten when idle.
 * docs/exactly-once.md#many-triggers-on-one-account
 */
import { createHash } from 'crypto';

import { Pacer } from '../../shared/transport';

/** An account nobody checked for this long, with no trigger left on it, is forgotten. */
export const IDLE_MS = 10 * 60_000;
/** What is kept is looked over at most this often (every check of every trigger asks). */
const SWEEP_EVERY_MS = 1_000;

/** The account of a credential, as a hash of its Base URL's origin and its token. */
export function accountKey(baseUrl: string, token: string): string {
	let origin = baseUrl.trim();
	try {
		origin = new URL(origin).origin;
	} catch {
		// an unusable Base URL fails the request itself, with its own error
	}
	return createHash('sha256').update(`${origin}\n${token}`).digest('hex');
}

/**
 * Pure: the earliest time at or after `wanted` that is at least `gap` away from every time in
 * `others` (ascending).
 */
export function spreadSlot(wanted: number, others: number[], gap: number): number {
	let at = wanted;
	for (const other of others) {
		if (other + gap <= at) continue;
		if (other >= at + gap) break;
		at = other + gap;
	}
	return at;
}

interface Member {
	intervalMs: number;
	/** When its next (or last) check goes. */
	at?: number;
	seenAt: number;
}

interface Account {
	pacer: Pacer;
	members: Map<object, Member>;
	usedAt: number;
}

/** The accounts of this process: the pace of each, and the triggers checking it. */
export class SharedPaces {
	private readonly accounts = new Map<string, Account>();
	/** The account each member checked last. */
	private readonly accountOf = new Map<object, string>();
	private sweptAt = -Infinity;

	constructor(private readonly now: () => number = Date.now) {}

	/** The pace of `key`'s checks; `member` (one activation) counts among the account's triggers from now on. */
	pacerFor(key: string, member: object, intervalMs: number): Pacer {
		const now = this.now();
		this.sweep(now);
		const previous = this.accountOf.get(member);
		if (previous !== undefined && previous !== key) this.leave(member);
		let account = this.accounts.get(key);
		if (!account) {
			account = { pacer: new Pacer(), members: new Map(), usedAt: now };
			this.accounts.set(key, account);
		}
		account.usedAt = now;
		const known = account.members.get(member);
		account.members.set(member, { intervalMs, at: known?.at, seenAt: now });
		this.accountOf.set(member, key);
		return account.pacer;
	}

	/**
	 * When `member`'s next check goes, wanted at `wantedAt`: spread from the other checks of its account
	 * by the shortest interval among them divided by their number and one (the slack keeps a check a few
	 * milliseconds late from pushing the next ones back).
	 */
	slot(member: object, wantedAt: number): number {
		const account = this.accounts.get(this.accountOf.get(member) ?? '');
		const self = account?.members.get(member);
		if (!account || !self) return wantedAt;
		const others: number[] = [];
		let shortest = self.intervalMs;
		for (const [other, { at, intervalMs }] of account.members) {
			if (other === member) continue;
			shortest = Math.min(shortest, intervalMs);
			if (at !== undefined) others.push(at);
		}
		others.sort((a, b) => a - b);
		self.at = spreadSlot(wantedAt, others, shortest / (account.members.size + 1));
		return self.at;
	}

	/** The member stopped (its workflow was deactivated). */
	leave(member: object): void {
		const key = this.accountOf.get(member);
		this.accountOf.delete(member);
		const account = key === undefined ? undefined : this.accounts.get(key);
		account?.members.delete(member);
		this.sweep(this.now());
	}

	/** Accounts kept (for the tests of their bound). */
	get size(): number {
		return this.accounts.size;
	}

	/**
	 * Forgets members silent for much longer than their interval (a process that never called leave),
	 * and accounts without members that nobody used for IDLE_MS.
	 */
	private sweep(now: number): void {
		if (now - this.sweptAt < SWEEP_EVERY_MS) return;
		this.sweptAt = now;
		for (const [key, account] of this.accounts) {
			for (const [member, { seenAt, intervalMs }] of account.members) {
				if (now - seenAt <= 2 * intervalMs + IDLE_MS) continue;
				account.members.delete(member);
				this.accountOf.delete(member);
			}
			if (account.members.size === 0 && now - account.usedAt >= IDLE_MS) this.accounts.delete(key);
		}
	}
}

/** The process's accounts, shared by every activation of version 2. */
export const sharedPaces = new SharedPaces();
