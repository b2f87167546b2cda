/**
 * The checks of every version 2 trigger in this n8n process that use one account (the Base URL's
 * origin and the token) share one pace; triggers with the same listing check on a common tick, so that
 * they read its pages once (sharedPages.ts), and different listings keep apart. Keyed by a hash (the
 * token is not kept), forgotten when idle. docs/exactly-once.md#many-triggers-on-one-account
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
 * Pure: the phase (in ms, modulo `tick`) for a new listing: the middle of the widest gap between the
 * phases of the others, or `wanted` when there are none.
 */
export function phaseApart(wanted: number, others: number[], tick: number): number {
	if (others.length === 0) return wanted;
	const sorted = others.map((p) => ((p % tick) + tick) % tick).sort((a, b) => a - b);
	const last = sorted[sorted.length - 1];
	let best = { from: last - tick, width: sorted[0] - last + tick };
	for (let i = 1; i < sorted.length; i++) {
		const width = sorted[i] - sorted[i - 1];
		if (width > best.width) best = { from: sorted[i - 1], width };
	}
	return (Math.round(best.from + best.width / 2) + tick) % tick;
}

interface Member {
	intervalMs: number;
	/** What its checks list (same listing: same pages); triggers with one listing share one tick. */
	listing: string;
	seenAt: number;
	/** It checked another listing until now. */
	moved?: boolean;
}

interface Account {
	pacer: Pacer;
	members: Map<object, Member>;
	/** The phase of each listing's tick: its checks go at phase + k × the account's shortest interval. */
	phases: Map<string, number>;
	usedAt: number;
}

/** The accounts of this process: the pace of each, and the triggers checking it. */
export class SharedPaces {
	private readonly accounts = new Map<string, Account>();
	/** The account each member checked last. */
	private readonly accountOf = new Map<object, string>();
	private sweptAt = -Infinity;

	constructor(private readonly now: () => number = Date.now) {}

	/**
	 * The pace of `key`'s checks; `member` (one activation), whose checks read `listing`, counts among
	 * the account's triggers from now on.
	 */
	pacerFor(key: string, member: object, intervalMs: number, listing = ''): Pacer {
		const now = this.now();
		this.sweep(now);
		const previous = this.accountOf.get(member);
		if (previous !== undefined && previous !== key) this.leave(member);
		let account = this.accounts.get(key);
		if (!account) {
			account = { pacer: new Pacer(), members: new Map(), phases: new Map(), usedAt: now };
			this.accounts.set(key, account);
		}
		account.usedAt = now;
		const known = account.members.get(member);
		const moved = known !== undefined && known.listing !== listing;
		account.members.set(member, { intervalMs, listing, seenAt: now, moved: moved || known?.moved });
		if (moved) dropUnusedPhase(account, known.listing);
		this.accountOf.set(member, key);
		return account.pacer;
	}

	/**
	 * When `member`'s next check goes, due at `dueAt`: on its listing's tick nearest to it (the first at
	 * or after it when `notEarlier`, as after a failure), the ticks one shortest interval of the account
	 * apart. A check due now, or of a trigger alone on its account, is not moved.
	 */
	slot(member: object, dueAt: number, notEarlier = false): number {
		const now = this.now();
		const account = this.accounts.get(this.accountOf.get(member) ?? '');
		const self = account?.members.get(member);
		if (!account || !self || dueAt <= now || account.members.size < 2) return dueAt;
		const tick = this.tickOf(member) ?? self.intervalMs;
		let phase = account.phases.get(self.listing);
		if (phase === undefined) {
			phase = phaseApart(dueAt, [...account.phases.values()], tick);
			account.phases.set(self.listing, phase);
		}
		const steps = (dueAt - phase) / tick;
		let at = phase + (notEarlier ? Math.ceil(steps) : Math.round(steps)) * tick;
		// A trigger moving to another listing's tick goes on the one before rather than after, when it can:
		// the move never makes it wait longer than its interval.
		const before = phase + Math.floor(steps) * tick;
		if (self.moved && !notEarlier && before > now) at = before;
		self.moved = false;
		if (at < now) at += Math.ceil((now - at) / tick) * tick;
		return at;
	}

	/** The interval of `member`'s ticks: the shortest of its account's triggers. */
	tickOf(member: object): number | undefined {
		const account = this.accounts.get(this.accountOf.get(member) ?? '');
		let tick: number | undefined;
		for (const { intervalMs } of account?.members.values() ?? [])
			tick = Math.min(tick ?? intervalMs, intervalMs);
		return tick;
	}

	/** How many triggers, `member` included, check its account on its listing's tick. */
	together(member: object): number {
		const account = this.accounts.get(this.accountOf.get(member) ?? '');
		const listing = account?.members.get(member)?.listing;
		let count = 0;
		for (const other of account?.members.values() ?? []) if (other.listing === listing) count += 1;
		return count;
	}

	/** The member stopped (its workflow was deactivated). */
	leave(member: object): void {
		const key = this.accountOf.get(member);
		this.accountOf.delete(member);
		const account = key === undefined ? undefined : this.accounts.get(key);
		const self = account?.members.get(member);
		if (account && self) {
			account.members.delete(member);
			dropUnusedPhase(account, self.listing);
		}
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
			for (const [member, { seenAt, intervalMs, listing }] of account.members) {
				if (now - seenAt <= 2 * intervalMs + IDLE_MS) continue;
				account.members.delete(member);
				this.accountOf.delete(member);
				dropUnusedPhase(account, listing);
			}
			if (account.members.size === 0 && now - account.usedAt >= IDLE_MS) this.accounts.delete(key);
		}
	}
}

/** A listing no trigger of the account reads any more loses its tick. */
function dropUnusedPhase(account: Account, listing: string): void {
	for (const member of account.members.values()) if (member.listing === listing) return;
	account.phases.delete(listing);
}

/** The process's accounts, shared by every activation of version 2. */
export const sharedPaces = new SharedPaces();
