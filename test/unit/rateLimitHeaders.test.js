'use strict';
/** The limits a service announces: X-RateLimit-*, Twitter's, OpenAI's and the IETF drafts' fields. */
const { parseRateLimitHeaders } = require('../../dist/nodes/shared/headers/rateLimitHeaders');

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('parseRateLimitHeaders', () => {
	test('IETF RateLimit with RateLimit-Policy (drafts 05-07 and 08+)', () => {
		expect(
			parseRateLimitHeaders(
				{ ratelimit: 'limit=100, remaining=50, reset=5', 'ratelimit-policy': '100;w=60' },
				NOW,
			),
		).toEqual({
			limit: 100,
			remaining: 50,
			resetMs: 5000,
			windowMs: 60_000,
		});
		expect(
			parseRateLimitHeaders(
				{ RateLimit: '"default";r=7;t=2', 'RateLimit-Policy': '"default";q=10;w=1' },
				NOW,
			),
		).toEqual({
			limit: 10,
			remaining: 7,
			resetMs: 2000,
			windowMs: 1000,
		});
		expect(parseRateLimitHeaders({ 'ratelimit-policy': '100;w=60' }, NOW)).toBeUndefined();
	});
	test('IETF fields with several policies: the one nearest to exhaustion, with its own policy', () => {
		// Draft 08+: a per-minute and a daily quota, named; the daily one is nearly spent.
		expect(
			parseRateLimitHeaders(
				{
					ratelimit: '"minute";r=50;t=30, "day";r=3;t=3600',
					'ratelimit-policy': '"day";q=1000;w=86400, "minute";q=100;w=60',
				},
				NOW,
			),
		).toEqual({ limit: 1000, remaining: 3, resetMs: 3_600_000, windowMs: 86_400_000 });
		// As much left in both: the later reset binds longer.
		expect(
			parseRateLimitHeaders(
				{
					ratelimit: 'burst;r=0;t=1, "hour";r=0;t=1800',
					'ratelimit-policy': 'burst;q=10;w=1, "hour";q=500;w=3600',
				},
				NOW,
			),
		).toEqual({ limit: 500, remaining: 0, resetMs: 1_800_000, windowMs: 3_600_000 });
		// Drafts 05-07 report the nearest policy in RateLimit; RateLimit-Policy lists all, by quota.
		expect(
			parseRateLimitHeaders(
				{
					ratelimit: 'limit=1000, remaining=3, reset=3600',
					'ratelimit-policy': '100;w=60, 1000;w=86400',
				},
				NOW,
			),
		).toEqual({ limit: 1000, remaining: 3, resetMs: 3_600_000, windowMs: 86_400_000 });
		// A policy named in RateLimit but missing from RateLimit-Policy: no other policy's window or quota.
		expect(
			parseRateLimitHeaders(
				{ ratelimit: '"other";r=7;t=2', 'ratelimit-policy': '"default";q=10;w=1' },
				NOW,
			),
		).toEqual({ remaining: 7, resetMs: 2000 });
	});
	test("the split and limit-list forms take the reported policy's window, not the first listed", () => {
		// A per-second window read for a per-minute quota paced 60 times too fast (and floored a 429's
		// slowdown at 45/s): the split fields and the limit field's list had kept the first `w=`.
		const perMinute = { limit: 50, remaining: 3, resetMs: 40_000, windowMs: 60_000 };
		const split = {
			'ratelimit-limit': '50',
			'ratelimit-remaining': '3',
			'ratelimit-reset': '40',
		};
		expect(parseRateLimitHeaders({ ...split, 'ratelimit-policy': '10;w=1, 50;w=60' }, NOW)).toEqual(
			perMinute,
		);
		expect(
			parseRateLimitHeaders({ ...split, 'ratelimit-limit': '50, 10;w=1, 50;w=60' }, NOW),
		).toEqual(perMinute);
		expect(
			parseRateLimitHeaders(
				{
					'x-ratelimit-limit': '50, 10;w=1, 50;w=60',
					'x-ratelimit-remaining': '3',
					'x-ratelimit-reset': '40',
				},
				NOW,
			),
		).toEqual(perMinute);
	});
	test("a limit that no windowed policy has as its quota takes no other policy's window", () => {
		expect(
			parseRateLimitHeaders(
				{ ratelimit: 'limit=100, remaining=50, reset=5', 'ratelimit-policy': '100, 5000;w=86400' },
				NOW,
			),
		).toEqual({ limit: 100, remaining: 50, resetMs: 5000 });
	});
	test('a draft 08+ policy counting something other than requests is not a count of requests', () => {
		const policy = '"req";q=100;w=60, "bytes";q=10000;qu="content-bytes";w=60';
		expect(
			parseRateLimitHeaders(
				{ ratelimit: '"req";r=50;t=30, "bytes";r=10;t=30', 'ratelimit-policy': policy },
				NOW,
			),
		).toEqual({ limit: 100, remaining: 50, resetMs: 30_000, windowMs: 60_000 });
		expect(
			parseRateLimitHeaders({ ratelimit: '"bytes";r=10;t=30', 'ratelimit-policy': policy }, NOW),
		).toBeUndefined();
	});
	test("Twitter's X-Rate-Limit-* (an epoch reset)", () => {
		expect(
			parseRateLimitHeaders(
				{
					'x-rate-limit-limit': '900',
					'x-rate-limit-remaining': '0',
					'x-rate-limit-reset': String(NOW / 1000 + 900),
				},
				NOW,
			),
		).toEqual({ limit: 900, remaining: 0, resetMs: 900_000 });
	});
	test('the split RateLimit-* and X-RateLimit-* forms', () => {
		expect(
			parseRateLimitHeaders(
				{ 'ratelimit-limit': '10', 'ratelimit-remaining': '3', 'ratelimit-reset': '1' },
				NOW,
			),
		).toEqual({
			limit: 10,
			remaining: 3,
			resetMs: 1000,
		});
		expect(
			parseRateLimitHeaders(
				{
					'X-RateLimit-Limit': '100, 100;w=60',
					'X-RateLimit-Remaining': ['0'],
					'X-RateLimit-Reset': '12',
				},
				NOW,
			),
		).toEqual({
			limit: 100,
			remaining: 0,
			resetMs: 12_000,
			windowMs: 60_000,
		});
	});
	test("Discord's X-RateLimit-Reset-After and OpenAI's request budget with duration resets", () => {
		expect(
			parseRateLimitHeaders(
				{
					'x-ratelimit-limit': '5',
					'x-ratelimit-remaining': '4',
					'x-ratelimit-reset-after': '1.250',
				},
				NOW,
			),
		).toEqual({ limit: 5, remaining: 4, resetMs: 1250 });
		const openAi = (reset) => ({
			'x-ratelimit-limit-requests': '500',
			'x-ratelimit-remaining-requests': '499',
			'x-ratelimit-reset-requests': reset,
			'x-ratelimit-limit-tokens': '30000',
			'x-ratelimit-remaining-tokens': '29000',
			'x-ratelimit-reset-tokens': '2s',
		});
		// The budget refills continuously; its reset is when it is full: one request's share of it.
		expect(parseRateLimitHeaders(openAi('120ms'), NOW)).toEqual({
			limit: 500,
			remaining: 499,
			resetMs: 120,
		});
		const spent = (reset) => ({
			...openAi(reset),
			'x-ratelimit-remaining-requests': '0',
		});
		expect(parseRateLimitHeaders(spent('1m0s'), NOW).resetMs).toBe(120);
		expect(parseRateLimitHeaders(spent('1h2m3.5s'), NOW).resetMs).toBe(3_723_500 / 500);
		for (const bad of ['6 m', '1x', 's', '-1s', '1s2', '1e3s', `${'1'.repeat(16_000)}x`]) {
			expect(parseRateLimitHeaders(openAi(bad), NOW)).toBeUndefined();
		}
		// Discord sends both: the relative Reset-After wins over the epoch Reset (a skewed clock moves that one).
		const both = {
			'x-ratelimit-remaining': '0',
			'x-ratelimit-reset': String(NOW / 1000 + 9),
			'x-ratelimit-reset-after': '2.5',
		};
		expect(parseRateLimitHeaders(both, NOW).resetMs).toBe(2500);
	});
	test('every header form the sandbox sends reads back as the state it announced', () => {
		const { HEADER_FORMS, rateLimitHeaders } = require('../../sandbox/limiters');
		const state = { limit: 100, remaining: 42, resetMs: 6500, windowMs: 60_000 };
		const read = HEADER_FORMS.filter((form) => form !== 'none').map((form) => {
			const parsed = parseRateLimitHeaders(rateLimitHeaders(form, state, NOW), NOW);
			return [form, parsed?.limit, parsed?.remaining, parsed?.resetMs];
		});
		expect(read).toEqual([
			['x-ratelimit', 100, 42, 7000],
			['x-ratelimit-epoch', 100, 42, 7000],
			['x-ratelimit-reset-after', 100, 42, 6500],
			['x-ratelimit-requests', 100, 42, 6500 / 58],
			['ietf', 100, 42, 7000],
			['ietf-draft-07', 100, 42, 7000],
		]);
	});
	test('a form without both a count and a reset gives way to the next; a draft 05-07 count takes its policy by quota, else the first windowed', () => {
		expect(
			parseRateLimitHeaders(
				{
					ratelimit: 'limit=10, remaining=3',
					'x-ratelimit-remaining': '2',
					'x-ratelimit-reset': '4',
				},
				NOW,
			),
		).toEqual({ remaining: 2, resetMs: 4000 });
		const draft07 = (policy) =>
			parseRateLimitHeaders({ ratelimit: 'remaining=5, reset=3', 'ratelimit-policy': policy }, NOW);
		expect(draft07('10;w=1, 100;w=60')).toEqual({
			limit: 10,
			remaining: 5,
			resetMs: 3000,
			windowMs: 1000,
		});
		expect(draft07('100, 7')).toEqual({ limit: 100, remaining: 5, resetMs: 3000 });
		// Draft 08+: the same remaining and reset in two policies: the first listed.
		expect(
			parseRateLimitHeaders(
				{ ratelimit: '"a";r=1;t=5, "b";r=1;t=5', 'ratelimit-policy': '"b";q=20;w=2, "a";q=10;w=1' },
				NOW,
			),
		).toEqual({ limit: 10, remaining: 1, resetMs: 5000, windowMs: 1000 });
	});
	test('every split form but the budget reads a relative -Reset-After first; any reset may be a duration', () => {
		expect(
			parseRateLimitHeaders({ 'ratelimit-remaining': '1', 'ratelimit-reset-after': '0.5' }, NOW),
		).toEqual({ remaining: 1, resetMs: 500 });
		expect(
			parseRateLimitHeaders(
				{ 'x-rate-limit-remaining': '1', 'x-rate-limit-reset-after': '2' },
				NOW,
			),
		).toEqual({ remaining: 1, resetMs: 2000 });
		expect(
			parseRateLimitHeaders({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '1m30s' }, NOW),
		).toEqual({ remaining: 1, resetMs: 90_000 });
		const budget = {
			'x-ratelimit-remaining-requests': '0',
			'x-ratelimit-reset-requests': '2s',
			'x-ratelimit-reset-after-requests': '9',
		};
		// A limit of 0 names no budget to share out.
		expect(parseRateLimitHeaders({ ...budget, 'x-ratelimit-limit-requests': '0' }, NOW)).toEqual({
			remaining: 0,
			resetMs: 2000,
		});
	});
	test('a large reset is an epoch time: seconds from 1e9, milliseconds from 1e12; in the past it is 0', () => {
		const headers = (reset) => ({
			'x-ratelimit-remaining': '4999',
			'x-ratelimit-reset': String(reset),
		});
		expect(parseRateLimitHeaders(headers(NOW / 1000 + 1800), NOW).resetMs).toBe(1_800_000);
		expect(parseRateLimitHeaders(headers(NOW + 2500), NOW).resetMs).toBe(2500);
		expect(parseRateLimitHeaders(headers(NOW / 1000 - 10), NOW).resetMs).toBe(0);
		expect(parseRateLimitHeaders(headers(999_999_999), NOW).resetMs).toBe(999_999_999_000);
	});
	test('missing or malformed remaining or reset gives undefined', () => {
		expect(
			parseRateLimitHeaders({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '3' }, NOW),
		).toBeUndefined();
		expect(
			parseRateLimitHeaders({ 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '3' }, NOW),
		).toBeUndefined();
		expect(
			parseRateLimitHeaders({ 'x-ratelimit-remaining': 'many', 'x-ratelimit-reset': '3' }, NOW),
		).toBeUndefined();
		expect(parseRateLimitHeaders({ ratelimit: 'garbage' }, NOW)).toBeUndefined();
		expect(parseRateLimitHeaders(undefined, NOW)).toBeUndefined();
	});
});
