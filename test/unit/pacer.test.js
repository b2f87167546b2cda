'use strict';
/** The pacer, through its handle: acquire() → Turn → turn.release(answer), on a fake clock. */
const {
	DeadlineReached,
	Pacer,
	RunStopped,
} = require('../../dist/nodes/shared/transport/pacing/pacer');
const { MAX_START_GAP_MS } = require('../../dist/nodes/shared/transport/pacing/rateEstimate');
const { MAX_WAIT_PER_RETRY_MS, serviceNow } = require('../../dist/nodes/shared/headers/retryAfter');
const { NOW, manualPacer, warmedUp, refuse } = require('../harness/manualPacer');

describe('Pacer', () => {
	test('an idle service costs nothing: no turn waits', async () => {
		const { clock, take } = manualPacer();
		for (let i = 0; i < 1000; i++) {
			const [turn] = await take();
			expect([turn.waitedMs, turn.startedAt, turn.inFlight]).toEqual([0, clock.now, 1]);
			turn.release({
				statusCode: i % 7 ? 200 : 404,
				headers: { 'content-type': 'application/json' },
			});
			if (i % 3 === 0) clock.now += 1;
		}
	});
	test('a 429 pauses every start about one latency, not its Retry-After; then one probe goes alone', async () => {
		const { clock, take } = await warmedUp();
		const [turn] = await take();
		clock.now += 25;
		refuse(turn, '1');
		const [probe, next] = await take(2);
		expect(probe.waitedMs).toBeGreaterThanOrEqual(20);
		expect(probe.waitedMs).toBeLessThan(100); // the refused request waits its own second (the transport does)
		expect(next.waitedMs - probe.waitedMs).toBeGreaterThanOrEqual(20); // the probe's answer is due first
	});
	test('a probe refused again meets a wall: the pause doubles per refused probe, never past the service moment', async () => {
		const { clock, take } = await warmedUp();
		const probeRefused = async () => {
			const [turn] = await take();
			clock.now += 25;
			refuse(turn, '1');
			return turn.waitedMs;
		};
		await probeRefused(); // the event
		const pauses = [];
		for (let i = 0; i < 9; i++) pauses.push(await probeRefused());
		expect(pauses[0]).toBeLessThan(100);
		for (let i = 1; i < pauses.length; i++)
			expect(pauses[i]).toBeCloseTo(Math.min(1000, 2 * pauses[i - 1]), -1);
		expect(pauses.at(-1)).toBe(1000);
		// A success ends the wall: the next 429 is a new event, with a brief pause again.
		const [served] = await take();
		clock.now += 25;
		served.release({ statusCode: 200, headers: {} });
		expect(await probeRefused()).toBeLessThanOrEqual(1000);
		const [after] = await take();
		expect(after.waitedMs).toBeLessThan(100);
	});
	test('one slowdown per event: 429s of requests started before it change nothing', async () => {
		const spacingAfter = async (stale) => {
			const { clock, take } = await warmedUp();
			const turns = await take(10);
			clock.now += 30;
			for (const turn of turns.slice(0, stale)) refuse(turn, '1');
			// The probe's pause is the event's; the spacing after it follows the latency, which every answer updates.
			const [probe, afterProbe, next] = await take(3);
			return [probe.waitedMs, next.waitedMs - afterProbe.waitedMs];
		};
		const [[pause8, spacing8], [pause1, spacing1]] = [await spacingAfter(8), await spacingAfter(1)];
		expect(pause8).toBe(pause1);
		expect(spacing8).toBeCloseTo(spacing1, 6);
	});
	test('after the pause, starts are paced at the rate the service accepted, at most MAX_START_GAP_MS apart', async () => {
		const { clock, take } = await warmedUp(); // 200/s accepted for half a second
		const [turn] = await take();
		clock.now += 25;
		refuse(turn, '1');
		const waits = (await take(12)).map((t) => t.waitedMs);
		const gaps = waits.slice(2).map((w, i) => w - waits[i + 1]);
		// 100 accepted in the last second: 95/s trusted, at least 1/0.9 of the pace that failed.
		for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1000 / 180);
		for (const gap of gaps) expect(gap).toBeLessThanOrEqual(MAX_START_GAP_MS);
	});
	test("turns taken before a 429's pause are taken again behind its probe; turns taken after it stand", async () => {
		const { clock, take, reserve, given, runTo } = await warmedUp();
		const [turn] = await take();
		clock.now += 25;
		refuse(turn, '1'); // the event: the rate drops, the starts pause
		const probe = reserve();
		const next = reserve();
		const [sent] = await given(probe);
		expect(sent.startedAt).toBe(probe.due); // taken after the pause: it stands
		await runTo(sent.startedAt + 20);
		refuse(sent, '1'); // the probe refused again: a wall, a longer pause
		expect(next.due).toBeGreaterThan(clock.now);
		const [again] = await given(next);
		expect(again.startedAt).toBeGreaterThan(next.due); // taken before it: taken again behind it
		const later = reserve();
		const [stands] = await given(later);
		expect(stands.startedAt).toBe(later.due);
	});
	test('announced limits: no more than `limit` starts per named window, before any 429', async () => {
		const { clock, take } = manualPacer();
		const [first] = await take();
		clock.now += 30;
		first.release({
			statusCode: 200,
			headers: { ratelimit: 'limit=10, remaining=9, reset=1', 'ratelimit-policy': '10;w=1' },
		});
		const waits = (await take(20)).map((t) => t.waitedMs);
		// 10 starts in the first second (the first one included), the 11th a window after the first.
		expect(waits.filter((w) => w < 970)).toHaveLength(9);
		expect(Math.min(...waits.slice(9))).toBeGreaterThanOrEqual(970);
	});
	test('a named window counts an answered request from its answer: a first wave answered slowly frees the window later', async () => {
		const { clock, take } = manualPacer();
		const answer = (turn, remaining) =>
			turn.release({
				statusCode: 200,
				headers: {
					ratelimit: `limit=10, remaining=${remaining}, reset=1`,
					'ratelimit-policy': '10;w=1',
				},
			});
		// One request answered in 20 ms: no request reaches the service sooner than that.
		const [first] = await take();
		clock.now += 20;
		answer(first, 9);
		// The nine others are answered 300 ms after they left (a first connection, a cold service): the
		// service counted them then, so the window they fill ends 300 ms later than their starts say.
		const nine = await take(9);
		expect(nine.map((t) => t.startedAt)).toEqual(new Array(9).fill(NOW + 20));
		clock.now += 300;
		nine.forEach((turn, i) => answer(turn, 8 - i));
		const reservedAt = clock.now;
		const [eleventh, twelfth] = await take(2);
		// The 11th may start a window after the first was counted (less the 20 ms it takes to arrive)...
		expect(eleventh.waitedMs).toBe(NOW + 20 + 1020 - 20 - reservedAt);
		// ...the 12th a window after the slow ones were, not a window after they started.
		expect(twelfth.waitedMs).toBeGreaterThanOrEqual(1000);
		expect(twelfth.waitedMs).toBeLessThanOrEqual(1000 * 1.02 + 1);
	});
	test('a spent quota with a far reset holds until the reset, at most MAX_WAIT_PER_RETRY_MS', async () => {
		const nextWait = async (headers) => {
			const { take } = manualPacer();
			const [first] = await take();
			first.release({ statusCode: 200, headers });
			const [next] = await take();
			return next.waitedMs;
		};
		const spent = (resetSeconds) =>
			nextWait({
				'x-ratelimit-limit': '5000',
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': String(NOW / 1000 + resetSeconds),
			});
		expect(await spent(30)).toBe(30_000);
		expect(await spent(7200)).toBe(MAX_WAIT_PER_RETRY_MS);
		// OpenAI's form: a spent request budget waits one request's share of its reset (12.5 s for 1 a minute
		// but not 60 s for 500 a minute: that one is paced by its 429s), or the whole reset with no limit named.
		const openAi = (limit, reset) =>
			nextWait({
				'x-ratelimit-remaining-requests': '0',
				'x-ratelimit-reset-requests': reset,
				'x-ratelimit-remaining-tokens': '9000',
				...(limit === undefined ? {} : { 'x-ratelimit-limit-requests': String(limit) }),
			});
		expect(await openAi(1, '12.5s')).toBe(12_500);
		expect(await openAi(undefined, '12.5s')).toBe(12_500);
		expect(await openAi(500, '59.9s')).toBe(0);
	});
	test("a 429's body names the wait when its headers do not: the pause after it follows that", async () => {
		const hold = async (headers, body) => {
			const { clock, take } = manualPacer();
			for (const turn of await take(3)) turn.release({ statusCode: 200, headers: {} });
			clock.now += 100;
			const [event] = await take();
			clock.now += 50;
			event.release({ statusCode: 429, headers, body });
			const [probe] = await take();
			probe.release({ statusCode: 429, headers, body }); // the probe, refused
			const [next] = await take();
			return next.waitedMs;
		};
		// A probe's pause never passes the service's moment: 10 ms named in the body, else the default hold.
		expect([await hold({}, { retry_after: 0.01 }), await hold({}, undefined)]).toEqual([10, 250]);
	});
});

describe('Pacer: a storm that does not clear', () => {
	test('a request that gave up on 429s with nothing of the run served since it was first sent stops the run: a turn waiting then is refused when its wait ends, a new one at once, a check (throughRefusal) goes; a request served again lifts it', async () => {
		const { clock, pacer, take, reserve, given } = manualPacer();
		const [gaveUp, other] = await take(2);
		clock.now += 60_000;
		refuse(gaveUp);
		const waiting = reserve();
		expect(waiting.sleptMs).toBeGreaterThan(0);
		pacer.gaveUp(gaveUp.startedAt);
		await expect(pacer.acquire()).rejects.toBeInstanceOf(RunStopped);
		await expect(given(waiting)).rejects.toBeInstanceOf(RunStopped);
		const [check] = await take(1, { throughRefusal: true });
		check.release();
		// Another request still in flight is answered: the service serves the run again.
		other.release({ statusCode: 404, headers: {} });
		const [again] = await take();
		again.release();
	});
	test('a request that gave up while others of the run were served does not stop the run', async () => {
		const { clock, pacer, take } = manualPacer();
		const [gaveUp] = await take();
		clock.now += 1000;
		const [served] = await take();
		served.release({ statusCode: 200, headers: {} });
		clock.now += 59_000;
		const [refused] = await take();
		refuse(refused);
		const [failed] = await take();
		failed.release({ statusCode: 503, headers: {} }); // a fault is not service
		pacer.gaveUp(gaveUp.startedAt);
		const [goes] = await take();
		goes.release();
		// Served before it was first sent: that says nothing of its own budget.
		pacer.gaveUp(clock.now);
		await expect(pacer.acquire()).rejects.toBeInstanceOf(RunStopped);
	});
});
