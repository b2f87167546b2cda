'use strict';
/** A cap on requests in flight, and the pacer's admission by it and by an announced quota. */
const {
	DeadlineReached,
	Pacer,
	RunStopped,
} = require('../../dist/nodes/shared/transport/pacing/pacer');
const {
	countAnswer,
	emptyLevels,
	inFlightCap,
	nextCap,
} = require('../../dist/nodes/shared/transport/pacing/inFlight');
const { NOW, manualPacer, warmedUp, refuse } = require('../harness/manualPacer');

// ---------- a cap on requests in flight ----------

function levels(answers) {
	const counts = emptyLevels();
	for (const [level, accepted, refused] of answers) {
		for (let i = 0; i < accepted; i++) countAnswer(counts, level, true);
		for (let i = 0; i < refused; i++) countAnswer(counts, level, false);
	}
	return counts;
}

describe('inFlightCap and nextCap', () => {
	test('a cap shows as an edge: accepted up to it, refused above', () => {
		expect(
			inFlightCap(
				levels([
					[1, 5, 0],
					[2, 9, 0],
					[3, 30, 0],
					[4, 1, 6],
					[5, 0, 3],
				]),
			),
		).toBe(3);
	});
	test("a rate limiter's refusals spread over the levels: no cap; a first wave refused above a bucket's burst reads as one", () => {
		expect(
			inFlightCap(
				levels([
					[1, 40, 2],
					[2, 80, 5],
					[3, 50, 4],
					[4, 9, 1],
				]),
			),
		).toBeUndefined();
		// Refusals below the edge too: not a cap.
		expect(
			inFlightCap(
				levels([
					[1, 10, 3],
					[2, 1, 5],
				]),
			),
		).toBeUndefined();
		// 32 at once against a burst of 10: indistinguishable from a cap of 10, and harmless, since the
		// pace learned from the 429s then keeps fewer than that in flight.
		const firstWave = Array.from({ length: 32 }, (_, i) => [i + 1, i < 10 ? 1 : 0, i < 10 ? 0 : 1]);
		expect(inFlightCap(levels(firstWave))).toBe(10);
	});
	test('once known, a cap follows the edge; without one it stays, and a clean level above raises it', () => {
		const some = [
			[1, 5, 0],
			[2, 9, 0],
			[3, 30, 0],
			[4, 1, 6],
		];
		expect(nextCap(levels(some), 3)).toBe(3);
		// Probes at level 4 partly accepted (answers on their way back are counted in flight): not enough.
		expect(nextCap(levels([...some, [4, 12, 0]]), 3)).toBe(3);
		// Level 4 accepted 40 of 41 and nothing refused above: one more.
		expect(
			nextCap(
				levels([
					[1, 5, 0],
					[2, 9, 0],
					[3, 30, 0],
					[4, 40, 1],
				]),
				3,
			),
		).toBe(4);
		// An edge below the cap lowers it.
		expect(
			nextCap(
				levels([
					[1, 5, 0],
					[2, 0, 5],
					[3, 0, 4],
				]),
				3,
			),
		).toBe(1);
		// No edge in sight: a known cap stays.
		expect(nextCap(levels([[1, 5, 0]]), 3)).toBe(3);
	});
});

describe('Pacer admission', () => {
	test('no cap known: every request is admitted at once, told how many are in flight', async () => {
		const { take } = manualPacer();
		const turns = await take(40);
		expect(turns.map((t) => t.inFlight)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
	});
	test('a cap found: the request above it waits for one to be released, and a probe goes one above now and then', async () => {
		const { clock, take, reserve, runTo, settle } = manualPacer();
		const first = await take(8);
		clock.now += 25; // answered after they started: not probes of the cap they show
		for (const turn of first)
			turn.release({ statusCode: turn.inFlight <= 3 ? 200 : 429, headers: {} });
		const inFlight = [];
		const starts = [];
		const wave = (n) => {
			for (let i = 1; i <= n; i++)
				void reserve().turn.then((turn) => {
					inFlight.push(turn);
					starts.push(`start ${i} at ${turn.inFlight}`);
				});
		};
		const release = async (turn = inFlight.shift(), answer = undefined) => {
			if (inFlight.includes(turn)) inFlight.splice(inFlight.indexOf(turn), 1);
			turn.release(answer);
			await settle();
		};
		wave(5);
		await runTo(Infinity); // every turn's wait over: the rest wait for a place
		expect(starts).toEqual(['start 1 at 1', 'start 2 at 2', 'start 3 at 3']);
		await release();
		expect(starts.at(-1)).toBe('start 4 at 3');
		// After 500 admissions that had to wait, one more is let in flight: a probe of the cap.
		const levelsSeen = () => starts.slice(4).map((start) => Number(start.split(' at ')[1]));
		wave(600);
		await runTo(Infinity);
		let released = 0;
		while (Math.max(...levelsSeen()) < 4 && released < 600) (await release(), released++);
		expect(released).toBeGreaterThanOrEqual(498);
		expect(released).toBeLessThanOrEqual(500);
		// The probe refused above the cap: back to 3 in flight at most.
		const before = starts.length;
		clock.now += 100; // past the next start the rate allows
		await release(inFlight.at(-1), { statusCode: 429, headers: {} }); // 4 in flight become 3: nobody else yet
		expect(starts).toHaveLength(before);
		expect(reserve().sleptMs).toBeUndefined(); // the cap's news, not the rate's: no pause
		await release();
		expect(levelsSeen().slice(before - 4)).toEqual([3]);
	});
});

describe('Pacer admission by an announced quota (X-RateLimit-Remaining, no window named)', () => {
	const quota = (remaining, reset = '1') => ({
		'x-ratelimit-limit': '10',
		'x-ratelimit-remaining': String(remaining),
		'x-ratelimit-reset': reset,
	});
	const bucket = (remaining) => ({ ...quota(remaining), 'x-ratelimit-limit': '2' });
	/** Named requests whose turns wait for nothing but a hold; `events` gets `name inFlight` as each goes. */
	const requests = () => {
		const env = manualPacer();
		const events = [];
		const turns = {};
		const request = (name) => {
			const reserved = env.reserve();
			void reserved.turn.then((turn) => {
				turns[name] = turn;
				events.push(`${name} ${turn.inFlight}`);
			});
			return reserved;
		};
		const answer = (name, headers, status = 200) =>
			turns[name].release({ statusCode: status, headers });
		return { ...env, events, turns, request, answer };
	};
	test('spent by the requests sent since: the next is held one round trip (never past the reset), then takes a new turn; with nothing in flight one goes', async () => {
		const { clock, settle, slept, runTo, given, events, turns, request, answer } = requests();
		for (const name of ['a', 'b', 'c']) {
			request(name);
			await settle(); // given, its start taken
			clock.now += 1;
		}
		clock.now += 30;
		// a's answer after 33 ms: 2 remaining, but b and c were sent after a: nothing left.
		answer('a', quota(2));
		const d = request('d');
		expect(d.sleptMs).toBe(33); // held one round trip (the fastest answer), then a new turn
		expect(events).toEqual(['a 1', 'b 2', 'c 3']);
		// b's answer: 2 remaining, c sent after it: one place, for d's new turn.
		answer('b', quota(2));
		await given(d);
		expect(slept).toEqual([33]);
		const e = request('e');
		expect(e.sleptMs).toBe(32); // c and d in flight, the quota spent: e is held (b answered in 32 ms)
		turns.c.release(); // c fails without an answer; d still in flight: e is held again
		await runTo(clock.now + 32);
		expect(e.settled).toBe(false);
		expect(slept).toEqual([33, 32, 32]);
		turns.d.release(); // nothing in flight any more, so no answer will come: e goes
		await given(e);
		expect(slept).toEqual([33, 32, 32]);
		expect(events).toEqual(['a 1', 'b 2', 'c 3', 'd 2', 'e 1']);
	});
	test('a bucket whose burst is below its rate × the round trip: answers that keep finding the quota full let one more go beyond it; one that finds it spent halves that', async () => {
		const { clock, settle, given, request, answer } = requests();
		for (const name of ['a', 'b', 'c']) {
			request(name);
			await settle(); // given, its start taken
			clock.now += 1;
		}
		clock.now += 31;
		answer('a', bucket(1)); // a found the quota full (1 of 2 left after itself): refill may be going to waste
		const d = request('d');
		expect(d.sleptMs).toBeDefined(); // b and c were sent after a: its 1 is spent, d is held
		clock.now += 1;
		answer('b', bucket(1)); // b found it full again, though a took one: one more may go beyond it
		await given(d);
		expect(d.due).toBeGreaterThan(clock.now - 1); // its new turn went at once
		clock.now += 1;
		answer('c', bucket(0)); // c found it spent: none beyond it any more
		expect(request('e').sleptMs).toBeDefined();
	});
	test('a quota of 1 is never read as full (its one place taken reads as spent): nothing goes beyond it', async () => {
		const { clock, settle, request, answer } = requests();
		const single = { ...quota(0), 'x-ratelimit-limit': '1' };
		for (const name of ['a', 'b', 'c', 'd']) {
			request(name);
			await settle(); // given, its start taken
			clock.now += 1;
		}
		clock.now += 30;
		for (const name of ['a', 'b', 'c']) answer(name, single);
		expect(request('e').sleptMs).toBeDefined(); // d in flight, the quota spent: the next is held
	});
	test('a 429 ends the requests let go beyond a bare quota', async () => {
		const { clock, settle, request, answer, events } = requests();
		for (const name of ['a', 'b', 'c', 'd', 'e']) {
			request(name);
			await settle(); // given, its start taken
			clock.now += 1;
		}
		clock.now += 30;
		for (const name of ['a', 'b', 'c']) answer(name, bucket(1));
		answer('d', bucket(0), 429);
		// Found full three times: two beyond it, e in flight; after the 429 none: the next is held.
		const f = request('f');
		await settle();
		expect([f.sleptMs !== undefined, events.includes('f 2')]).toEqual([true, false]);
	});
	test('answers finding the quota full while the count held nothing back let nothing go beyond it: a later wave stops at the announced remaining', async () => {
		const { clock, settle, take, events, request } = requests();
		// One request at a time for a while: every answer finds the quota full (9 of 10 after itself).
		for (let i = 0; i < 50; i++) {
			const [turn] = await take();
			clock.now += 25;
			turn.release({ statusCode: 200, headers: quota(9) });
			clock.now += 1;
		}
		// Then a wave: the last answer said 9 remain, so 9 go and the tenth is held a round trip.
		const wave = Array.from({ length: 12 }, (_, i) => request(`w${i}`));
		await settle();
		expect(events).toEqual(Array.from({ length: 9 }, (_, i) => `w${i} ${i + 1}`));
		expect(wave.map((r) => r.sleptMs)).toEqual([...new Array(9).fill(undefined), 25, 25, 25]);
	});
	test('429s of requests sent before the service first named its limits (a first wave) do not slow the pace: the quota it named keeps the run under it; a 429 sent after does', async () => {
		const { clock, take, reserve, given } = manualPacer();
		const [a, b, c] = await take(3);
		clock.now += 40; // n8n's first answers are slow
		a.release({ statusCode: 200, headers: quota(1) });
		clock.now += 1;
		b.release({ statusCode: 429, headers: quota(0) });
		c.release({ statusCode: 429, headers: quota(0) });
		const next = reserve();
		expect(next.sleptMs).toBeUndefined(); // no pause, no spacing
		const [sent] = await given(next);
		clock.now += 25;
		sent.release({ statusCode: 429, headers: quota(0) });
		expect(reserve().sleptMs).toBeGreaterThan(0); // an event: a pause, then a probe
	});
	test('requests sent in the same millisecond as the announcing one count as sent after it', async () => {
		const { clock, settle, events, request, answer } = requests();
		for (const name of ['a', 'b', 'c']) request(name); // one tick: a first wave
		await settle();
		clock.now += 30;
		// a's answer: 2 remaining, spent by b and c.
		answer('a', quota(2));
		expect(request('d').sleptMs).toBe(30);
		expect(events).toEqual(['a 1', 'b 2', 'c 3']);
	});
	test("a hold never outlasts the quota's reset, and once the reset passed slow requests in flight hold nobody", async () => {
		const { clock, settle, runTo, given, slept, events, request, answer } = requests();
		request('a');
		await settle();
		clock.now += 1;
		request('b'); // slow: in flight the whole time
		await settle();
		clock.now += 990;
		answer('a', quota(0));
		clock.now += 995;
		const c = request('c');
		expect(c.sleptMs).toBe(5); // the reset is 5 ms away, sooner than a round trip
		await runTo(clock.now + 5);
		await given(c); // its new turn: the reset passed, it goes with b in flight
		expect(slept).toEqual([5]);
		expect(events).toEqual(['a 1', 'b 2', 'c 2']);
	});
	test('a turn acquire() refuses (past its deadline, or cancelled while waiting) no longer counts against a named window', async () => {
		for (const refusal of ['deadline', 'cancelled']) {
			const { clock, take, reserve, settle } = manualPacer();
			const window = { ratelimit: 'limit=2, remaining=2, reset=1', 'ratelimit-policy': '2;w=1' };
			const cancel = new AbortController();
			const [turn] = await take();
			clock.now += 20;
			turn.release({ statusCode: 200, headers: window });
			const [second] = await take();
			expect(second.waitedMs).toBe(0); // the window's second place
			// The next turn's wait (the next window) passes the deadline, or is cancelled while waited.
			const deadline = clock.now + (refusal === 'deadline' ? 500 : 60_000);
			const refused = reserve({ deadline, signal: cancel.signal });
			if (refusal === 'cancelled') {
				expect(refused.sleptMs).toBeGreaterThan(900);
				cancel.abort();
			}
			const error = await refused.turn.catch((e) => e);
			if (refusal === 'deadline') expect(error).toBeInstanceOf(DeadlineReached);
			else expect(error.name).toBe('AbortError');
			await settle();
			// The refused turn was not kept: the next window has both its places.
			clock.now += 1100;
			const [third, fourth] = await take(2);
			expect([third.waitedMs, fourth.waitedMs]).toEqual([0, 0]);
		}
	});
	test('its reset passed, or the service names a window (paced by time instead): nobody is held for the count', async () => {
		for (const headers of [
			quota(0),
			{ ratelimit: 'limit=10, remaining=0, reset=1', 'ratelimit-policy': '10;w=1' },
		]) {
			const { clock, take, reserve, given, slept } = manualPacer();
			const [a] = await take();
			clock.now += 1;
			await take(); // in flight the whole time
			a.release({ statusCode: 200, headers });
			const answeredAt = clock.now;
			const c = reserve();
			const [sent] = await given(c);
			if (headers.ratelimit) {
				expect(sent.startedAt).toBe(c.due); // its turn's spacing only
			} else {
				// Held a round trip (at least 5 ms) at a time, until the reset (1 s after the answer) passed.
				expect(slept.slice(0, 3)).toEqual([5, 5, 5]);
				expect(sent.startedAt).toBeGreaterThanOrEqual(answeredAt + 1000);
				expect(sent.startedAt).toBeLessThan(answeredAt + 1005);
			}
		}
	});
});

// ---------- the targets, on the sandbox's limiters in virtual time ----------

/**
 * Not met yet, in simulation (seeds 1-3): [× minimum, 429 share] pinned a little above what the Pacer
 * reaches, so it cannot get worse unseen. At 32 in flight the first wave is refused in part before any
 * answer: above a cap of 3, 29 of 32, more than 2% of 1,000 requests where the service sends rate-limit
 * headers; a cap on requests in flight is counted with the answers still on their way back (about
 * 1.1-1.2×).
 */
