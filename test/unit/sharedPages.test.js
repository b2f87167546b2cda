'use strict';
/**
 * The pages version 2's triggers on one account read together (nodes/MessagingTrigger/v2/sharedPages.ts),
 * on its own with a fake clock: what is asked once, what each reader gets, and what is never shared.
 */
const { PageSharer, FRESH_MS } = require('../../dist/nodes/MessagingTrigger/v2/sharedPages');

let now;
let sharer;
let asked;

/** A request the test answers (or fails) when it wants, in `asked` once made. */
const request = (key) => () =>
	new Promise((resolve, reject) => asked.push({ key, settle: { resolve, reject } }));
const page = (...ids) => ({ data: ids.map((id) => ({ id })), hasMore: false, serviceTimeMs: 42 });
const ask = (reader, key = 'k', abandoned) => sharer.page(reader, key, request(key), abandoned);

beforeEach(() => {
	now = 1_000_000;
	sharer = new PageSharer(() => now);
	asked = [];
});

test('readers asking for the same page while it is in flight get one request, each its own copy of the answer', async () => {
	const readers = Array.from({ length: 20 }, (_, i) => `trigger ${i}`);
	const answers = readers.map((r) => ask(r));
	expect(asked).toHaveLength(1);
	asked[0].settle.resolve(page('m1', 'm2'));
	const pages = await Promise.all(answers);
	expect(sharer.stats).toEqual({ requests: 1, shared: 19 });
	for (const p of pages) expect(p).toEqual(page('m1', 'm2'));
	pages[0].data[0].id = 'changed by one trigger';
	expect(pages[1].data[0].id).toBe('m1');
});

test(`an answer serves the same page asked for up to ${FRESH_MS} ms after it came, not later`, async () => {
	const [a, b, c] = ['a', 'b', 'c'];
	const first = ask(a);
	asked[0].settle.resolve(page('m1'));
	await first;
	now += FRESH_MS;
	await expect(ask(b)).resolves.toEqual(page('m1'));
	now += 1;
	const late = ask(c);
	expect(asked).toHaveLength(2);
	asked[1].settle.resolve(page('m2'));
	await expect(late).resolves.toEqual(page('m2'));
});

test('an answer asked for with a longer freshness (half the tick) serves readers that long, and no longer', async () => {
	const first = sharer.page('a', 'k', request('k'), undefined, 2_500);
	asked[0].settle.resolve(page('m1'));
	await first;
	now += 2_500;
	await expect(ask('b')).resolves.toEqual(page('m1'));
	now += 1;
	const late = ask('c');
	expect(asked).toHaveLength(2);
	asked[1].settle.resolve(page('m2'));
	await expect(late).resolves.toEqual(page('m2'));
});

test('another page (another cursor, size, query or account) is asked for', async () => {
	const [a, b] = ['a', 'b'];
	const one = ask(a, 'acct\nmessages\n{}\n\n100');
	const other = ask(b, 'acct\nmessages\n{}\nm9\n100');
	expect(asked).toHaveLength(2);
	asked[0].settle.resolve(page('m1'));
	asked[1].settle.resolve(page('m10'));
	await expect(one).resolves.toEqual(page('m1'));
	await expect(other).resolves.toEqual(page('m10'));
});

test('a reader is never served an answer asked for before its last check ended: it never reads the service older than it did', async () => {
	const [a, b] = ['a', 'b'];
	const early = ask(a); // asked for before b's check below ends
	sharer.checked(b);
	const mine = ask(b);
	expect(asked).toHaveLength(2);
	asked[0].settle.resolve(page('m1'));
	asked[1].settle.resolve(page('m2', 'm1'));
	await expect(early).resolves.toEqual(page('m1'));
	await expect(mine).resolves.toEqual(page('m2', 'm1'));
	// a, whose check is still under way, takes b's newer answer.
	await expect(ask(a)).resolves.toEqual(page('m2', 'm1'));
	expect(asked).toHaveLength(2);
});

test("a trigger's next activation goes on from where its last one read (the reader is the workflow and node)", async () => {
	const early = ask('other trigger');
	sharer.checked('wf-1\nnode-1'); // the last check of its previous activation ended after that request left
	const next = ask('wf-1\nnode-1');
	expect(asked).toHaveLength(2);
	asked[0].settle.resolve(page('m1'));
	asked[1].settle.resolve(page('m2', 'm1'));
	await expect(early).resolves.toEqual(page('m1'));
	await expect(next).resolves.toEqual(page('m2', 'm1'));
});

test('a failure is shared only by those waiting for the request; the next reader asks again', async () => {
	const [a, b, c] = ['a', 'b', 'c'];
	const waiting = [ask(a), ask(b)];
	asked[0].settle.reject(new Error('503'));
	for (const w of waiting) await expect(w).rejects.toThrow('503');
	const again = ask(c);
	expect(asked).toHaveLength(2);
	asked[1].settle.resolve(page('m1'));
	await expect(again).resolves.toEqual(page('m1'));
});

test("readers whose asker stopped (its request aborted) ask again, once between them, and are not failed by the other's stop", async () => {
	let stopped = false;
	const gone = ask('a', 'k', () => stopped);
	const joined = [ask('b'), ask('c')];
	stopped = true;
	asked[0].settle.reject(new Error('aborted'));
	await expect(gone).rejects.toThrow('aborted');
	await new Promise(setImmediate);
	expect(asked).toHaveLength(2);
	asked[1].settle.resolve(page('m1'));
	for (const j of joined) await expect(j).resolves.toEqual(page('m1'));
});

test('what is kept stays bounded: answers older than the freshness window are forgotten', async () => {
	for (let i = 0; i < 1000; i++) {
		const p = ask(`trigger ${i}`, `page ${i}`);
		asked[i].settle.resolve(page(`m${i}`));
		await p;
		sharer.checked(`trigger ${i}`);
	}
	expect(sharer.size).toEqual({ entries: 1000, readers: 1000 });
	now += FRESH_MS + 1;
	const last = ask('last', 'last');
	asked[1000].settle.resolve(page('m'));
	await last;
	expect(sharer.size).toEqual({ entries: 1, readers: 0 });
});
