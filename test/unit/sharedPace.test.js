'use strict';
/**
 * The pace version 2's triggers share per account (nodes/MessagingTrigger/v2/sharedPace.ts), on its own:
 * the account's key, the common tick of triggers reading the same listing (and the listings kept apart),
 * and what the process keeps.
 */
const {
	accountKey,
	phaseApart,
	SharedPaces,
	IDLE_MS,
} = require('../../dist/nodes/MessagingTrigger/v2/sharedPace');

const TOKEN = 'secret-token-8d1f';

describe('accountKey: one account is the Base URL origin and the token', () => {
	test('the same origin and token are one account, whatever the path; another token or origin is another', () => {
		const key = accountKey('https://api.example.com/v1/', TOKEN);
		expect(accountKey('https://api.example.com', TOKEN)).toBe(key);
		expect(accountKey(' https://API.example.com:443/other ', TOKEN)).toBe(key);
		expect(accountKey('https://api.example.com/v1/', 'other-token')).not.toBe(key);
		expect(accountKey('https://api.example.org/v1/', TOKEN)).not.toBe(key);
		expect(accountKey('http://api.example.com/v1/', TOKEN)).not.toBe(key);
	});

	test('the key does not hold the token', () => {
		const key = accountKey('https://api.example.com', TOKEN);
		expect(key).toMatch(/^[0-9a-f]{64}$/);
		expect(key).not.toContain(TOKEN);
	});
});

describe('phaseApart: a new listing goes in the middle of the widest gap between the others', () => {
	test.each([
		['the first keeps the time it wants', 1234, [], 5000, 1234],
		['the second half an interval from the first', 0, [1000], 5000, 3500],
		['a third in the widest gap, across the end of the interval', 0, [1000, 3500], 5000, 4750],
		['phases are read modulo the tick', 0, [11000, 8500], 5000, 4750],
		['past the end of the interval: from its start again', 0, [4000, 4500], 5000, 1750],
	])('%s', (_, wanted, others, tick, expected) => {
		expect(phaseApart(wanted, others, tick)).toBe(expected);
	});
});

describe('SharedPaces', () => {
	let now;
	let paces;
	beforeEach(() => {
		now = 1_000_000;
		paces = new SharedPaces(() => now);
	});

	test('triggers on one account get one pacer; another account another', () => {
		const [a, b, c] = [{}, {}, {}];
		const pacer = paces.pacerFor('k1', a, 5000);
		expect(paces.pacerFor('k1', b, 5000)).toBe(pacer);
		expect(paces.pacerFor('k2', c, 5000)).not.toBe(pacer);
		expect(paces.size).toBe(2);
	});

	test('20 triggers reading the same listing check on one tick, wherever their checks were due, and keep it', () => {
		const members = Array.from({ length: 20 }, () => ({}));
		for (const m of members) paces.pacerFor('k', m, 5000, 'all');
		// Due anywhere within half an interval of the first one's tick: they go on it.
		const slots = members.map((m, i) => paces.slot(m, now + 5000 + (i % 2 ? 1 : -1) * i * 120));
		expect(new Set(slots)).toEqual(new Set([now + 5000]));
		// Each checks at its slot and wants the next one an interval (and its check's 30 ms) later.
		const next = members.map((m, i) => paces.slot(m, slots[i] + 5030));
		expect(new Set(next)).toEqual(new Set([now + 10000]));
	});

	test('a trigger moving to another listing goes on its tick before rather than after when it is due, never later than its interval', () => {
		const [a, b, mover] = [{}, {}, {}];
		paces.pacerFor('k', a, 5000, 'all');
		paces.pacerFor('k', b, 5000, 'one');
		paces.pacerFor('k', mover, 5000, 'one');
		expect(paces.slot(a, now + 5000)).toBe(now + 5000);
		expect(paces.slot(b, now + 5000)).toBe(now + 7500); // the widest gap
		expect(paces.together(mover)).toBe(2);
		// It checked on 'one' at +7500, and now reads 'all': due at +12,500, the tick at +10,000 comes first.
		paces.pacerFor('k', mover, 5000, 'all');
		expect(paces.together(mover)).toBe(2);
		expect(paces.together(b)).toBe(1);
		now += 7500;
		expect(paces.slot(mover, now + 5000)).toBe(1_010_000);
		// Once moved, the nearest tick as before.
		expect(paces.slot(mover, 1_010_000 + 5030)).toBe(1_015_000);
		expect(paces.tickOf(mover)).toBe(5000);
	});

	test('the tick of an account is its shortest interval', () => {
		const [fast, slow, alone] = [{}, {}, {}];
		paces.pacerFor('k', slow, 60000, 'all');
		expect(paces.tickOf(slow)).toBe(60000);
		paces.pacerFor('k', fast, 5000, 'all');
		expect(paces.tickOf(slow)).toBe(5000);
		expect(paces.tickOf(alone)).toBeUndefined();
	});

	test('a trigger checking every minute goes on the tick of the 5 s triggers of its listing nearest to when it is due', () => {
		const [fast, slow] = [{}, {}];
		paces.pacerFor('k', fast, 5000, 'all');
		paces.pacerFor('k', slow, 60000, 'all');
		expect(paces.slot(fast, now + 5000)).toBe(now + 5000);
		expect(paces.slot(slow, now + 62000)).toBe(now + 60000);
		expect(paces.slot(slow, now + 63000)).toBe(now + 65000);
	});

	test('after a failure the check goes on the first tick at or after its backoff, never before', () => {
		const [a, b] = [{}, {}];
		paces.pacerFor('k', a, 5000, 'all');
		paces.pacerFor('k', b, 5000, 'all');
		expect(paces.slot(a, now + 5000)).toBe(now + 5000);
		expect(paces.slot(b, now + 31000, true)).toBe(now + 35000);
		expect(paces.slot(b, now + 30000, true)).toBe(now + 30000);
	});

	test('triggers reading different listings (another conversation, page size or Base URL) keep apart: 4 listings at 5 s go at least 1.25 s apart', () => {
		const members = Array.from({ length: 4 }, () => ({}));
		members.forEach((m, i) => paces.pacerFor('k', m, 5000, `conversation ${i}`));
		const slots = members.map((m) => paces.slot(m, now + 5000)).sort((x, y) => x - y);
		const gaps = slots.slice(1).map((t, i) => t - slots[i]);
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1250);
		expect(slots[slots.length - 1] - slots[0]).toBeLessThan(5000);
	});

	test('a listing nobody reads any more gives up its tick: the next one takes the widest gap again', () => {
		const [a, b, c] = [{}, {}, {}];
		paces.pacerFor('k', a, 5000, 'one');
		paces.pacerFor('k', b, 5000, 'two');
		expect(paces.slot(a, now + 5000)).toBe(now + 5000);
		expect(paces.slot(b, now + 5000)).toBe(now + 7500);
		paces.leave(b);
		paces.pacerFor('k', c, 5000, 'three');
		expect(paces.slot(c, now + 5000)).toBe(now + 7500);
	});

	test('a check due now is not moved; a trigger alone on its account, or never seen, checks when it wants', () => {
		const [a, b] = [{}, {}];
		paces.pacerFor('k', a, 5000);
		expect(paces.slot(a, now + 5000)).toBe(now + 5000);
		expect(paces.slot(a, now + 5001)).toBe(now + 5001);
		paces.pacerFor('k', b, 5000);
		expect(paces.slot(a, now)).toBe(now);
		expect(paces.slot({}, now + 7)).toBe(now + 7);
	});

	test('a trigger whose credential moved to another account leaves the first', () => {
		const [a, b] = [{}, {}];
		paces.pacerFor('k1', a, 5000, 'one');
		paces.pacerFor('k1', b, 5000, 'two');
		expect(paces.slot(a, now + 5000)).toBe(now + 5000);
		paces.pacerFor('k2', a, 5000, 'one');
		expect(paces.slot(b, now + 6000)).toBe(now + 6000); // a no longer counts on k1: b's listing takes its own tick
	});

	test('an account is forgotten once its triggers left and it stayed idle; one in use is kept', () => {
		const [a, b] = [{}, {}];
		const first = paces.pacerFor('k1', a, 5000);
		paces.pacerFor('k2', b, 5000);
		paces.leave(a);
		now += IDLE_MS - 1;
		paces.pacerFor('k2', b, 5000);
		expect(paces.size).toBe(2); // left, not idle long enough yet: a re-activation keeps the pace
		expect(paces.pacerFor('k1', a, 5000)).toBe(first);
		paces.leave(a);
		now += IDLE_MS;
		paces.pacerFor('k2', b, 5000);
		expect(paces.size).toBe(1);
		expect(paces.pacerFor('k1', a, 5000)).not.toBe(first);
	});

	test('a trigger silent far beyond its interval (its process never said it stopped) is dropped', () => {
		const [a, b] = [{}, {}];
		paces.pacerFor('k1', a, 5000);
		paces.pacerFor('k2', b, 5000);
		now += 2 * 5000 + IDLE_MS + 1;
		paces.pacerFor('k2', b, 5000);
		now += IDLE_MS;
		paces.pacerFor('k2', b, 5000);
		expect(paces.size).toBe(1);
	});

	test('what is kept stays bounded: 1,000 activations on 1,000 tokens, each stopped, leave nothing after idling', () => {
		for (let i = 0; i < 1000; i++) {
			const member = {};
			paces.pacerFor(`token-${i}`, member, 5000);
			paces.leave(member);
		}
		now += IDLE_MS;
		paces.pacerFor('last', {}, 5000);
		expect(paces.size).toBe(1);
	});
});
