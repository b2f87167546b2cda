'use strict';
/**
 * The pace version 2's triggers share per account (nodes/MessagingTrigger/v2/sharedPace.ts), on its own:
 * the account's key, the spreading of checks, and what the process keeps.
 */
const {
	accountKey,
	spreadSlot,
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

describe('spreadSlot', () => {
	test.each([
		['nothing else reserved', 1000, [], 250, 1000],
		['far from the others', 1000, [0, 2000], 250, 1000],
		['too close to one: right after it', 1000, [900], 250, 1150],
		['pushed past a run of them', 1000, [900, 1150, 1400, 2000], 250, 1650],
		['exactly one gap after', 1000, [750], 250, 1000],
	])('%s', (_, wanted, others, gap, expected) => {
		expect(spreadSlot(wanted, others, gap)).toBe(expected);
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

	test('20 triggers due on the same tick are spread over the interval, and keep their places', () => {
		const members = Array.from({ length: 20 }, () => ({}));
		for (const m of members) paces.pacerFor('k', m, 5000);
		const slots = members.map((m) => paces.slot(m, now + 5000));
		const gap = 5000 / 21;
		slots.forEach((slot, i) => expect(slot).toBeCloseTo(now + 5000 + i * gap, 6));
		// Each checks at its slot and wants the next one an interval (and its check's 30 ms) later.
		const next = members.map((m, i) => paces.slot(m, slots[i] + 5030));
		next.forEach((slot, i) => expect(slot).toBe(slots[i] + 5030));
	});

	test('alone on its account, a trigger checks when it wants', () => {
		const a = {};
		paces.pacerFor('k', a, 5000);
		expect(paces.slot(a, now + 5000)).toBe(now + 5000);
		expect(paces.slot(a, now + 5001)).toBe(now + 5001);
		expect(paces.slot({}, now + 7)).toBe(now + 7); // never checked: not spread
	});

	test('a trigger whose credential moved to another account leaves the first', () => {
		const [a, b] = [{}, {}];
		paces.pacerFor('k1', a, 5000);
		paces.pacerFor('k1', b, 5000);
		paces.slot(a, now);
		paces.pacerFor('k2', a, 5000);
		expect(paces.slot(b, now)).toBe(now); // a no longer counts on k1
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
