'use strict';
// What the editor says is part of the product: every default, limit or unit a description quotes is read
// here from the property (or the constant) the code uses, so a text cannot drift from the code.
const path = require('node:path');
const fs = require('node:fs');

const DIST = path.resolve(__dirname, '..', '..', 'dist');
const { Messaging } = require(path.join(DIST, 'nodes/Messaging/Messaging.node.js'));
const { MessagingTrigger } = require(
	path.join(DIST, 'nodes/MessagingTrigger/MessagingTrigger.node.js'),
);
const { MessagingApi } = require(path.join(DIST, 'credentials/MessagingApi.credentials.js'));
const { MAX_RECENT_IDS } = require(path.join(DIST, 'nodes/MessagingTrigger/watermark.js'));
const schedule = require(path.join(DIST, 'nodes/MessagingTrigger/v2/schedule.js'));
const { downloadBudget } = require(path.join(DIST, 'nodes/shared/attachments/triggerDownloads.js'));
const { TOOL_MAX_LIMIT } = require(path.join(DIST, 'nodes/Messaging/descriptions/tool.js'));
const { TOOL_DESCRIPTIONS } = require(path.join(DIST, 'nodes/Messaging/actions/resources.js'));

/** Every property of both nodes (each version) and the credential, with where it sits. */
function allProperties() {
	const out = [];
	const walk = (props, where) => {
		for (const p of props ?? []) {
			const at = `${where} > ${p.displayName ?? p.name}`;
			out.push({ at, p });
			if (Array.isArray(p.options))
				walk(
					p.options.filter((o) => o.displayName || o.values),
					at,
				);
			if (Array.isArray(p.values)) walk(p.values, at);
		}
	};
	const trigger = new MessagingTrigger();
	for (const [version, node] of Object.entries(trigger.nodeVersions))
		walk(node.description.properties, `Messaging Trigger v${version}`);
	walk(new Messaging().description.properties, 'Messaging');
	walk(new MessagingApi().properties, 'Messaging API');
	return out;
}

const PROPERTIES = allProperties();
const texts = (p) => [p.description, p.hint].filter((t) => typeof t === 'string');
const number = (text) => Number(text.replace(/,/g, ''));

/** The numbers a text quotes as a bound or a default, each with the words that quote it. */
function quotedNumbers(text) {
	const found = [];
	/** @type {Array<[RegExp, string]>} */
	const patterns = [
		[/\bat most (\d[\d,]*)/g, 'max'],
		[/\bup to (\d[\d,]*)/g, 'max'],
		[/\bat least (\d[\d,]*)/g, 'min'],
		[/\b(\d[\d,]*) to (\d[\d,]*)\b/g, 'range'],
		[/\b(\d[\d,]*) by default/g, 'default'],
		[/\bdefault (\d[\d,]*)/g, 'default'],
	];
	for (const [re, kind] of patterns)
		for (const m of text.matchAll(re)) {
			if (kind === 'range') {
				found.push({ kind: 'min', value: number(m[1]), words: m[0] });
				found.push({ kind: 'max', value: number(m[2]), words: m[0] });
			} else found.push({ kind, value: number(m[1]), words: m[0] });
		}
	return found;
}

/** Numbers quoted that are not the property's own bound or default, and the constant each one is. */
const CONSTANTS = {
	'Look-Back Window (Seconds)': { max: MAX_RECENT_IDS },
	'Download Attachments': { max: downloadBudget(Infinity, 0).ms / 1000 },
};

describe('editor texts quote the code', () => {
	test('every quoted bound or default equals the property’s own (or the constant it names)', () => {
		const wrong = [];
		let checked = 0;
		for (const { at, p } of PROPERTIES)
			for (const text of texts(p))
				for (const q of quotedNumbers(text)) {
					checked++;
					const own = { min: p.typeOptions?.minValue, max: p.typeOptions?.maxValue }[q.kind];
					const expected =
						CONSTANTS[p.displayName]?.[q.kind] ?? (q.kind === 'default' ? p.default : own);
					if (expected !== q.value) wrong.push(`${at}: "${q.words}" but the code has ${expected}`);
				}
		expect(wrong).toEqual([]);
		expect(checked).toBeGreaterThanOrEqual(4);
	});

	test('Look-Back Window quotes the number of recent ids the state keeps', () => {
		const lookBack = PROPERTIES.find((x) => x.p.name === 'lookBackSeconds').p;
		expect(lookBack.description).toContain(`at most ${MAX_RECENT_IDS} messages`);
	});

	test('Check Every (version 2): the editor’s minimum and default are the schedule’s', () => {
		const checkEvery = PROPERTIES.filter(
			(x) => x.at.startsWith('Messaging Trigger v2') && x.p.name === 'interval',
		);
		const seconds = checkEvery.find((x) => x.p.displayOptions.show.unit.includes('seconds')).p;
		expect(seconds.typeOptions.minValue * 1000).toBe(schedule.MIN_INTERVAL_MS);
		expect(seconds.default).toBe(schedule.DEFAULT_INTERVAL_SECONDS);
		// A workflow saved with the default stores no value: every unit must share it.
		for (const { p } of checkEvery) expect(p.default).toBe(schedule.DEFAULT_INTERVAL_SECONDS);
		expect(schedule.intervalMs(1, 'seconds')).toBe(schedule.MIN_INTERVAL_MS);
		const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
		expect(readme).toContain(
			`every ${schedule.DEFAULT_INTERVAL_SECONDS} seconds by default (*Check Every*: ${schedule.MIN_INTERVAL_MS / 1000} seconds`,
		);
	});

	test('the tool descriptions quote the tool limit and Get Context’s defaults', () => {
		expect(TOOL_DESCRIPTIONS.message.getAll).toContain(`at most ${TOOL_MAX_LIMIT} as a tool`);
		expect(TOOL_DESCRIPTIONS.conversation.getAll).toContain(`at most ${TOOL_MAX_LIMIT} as a tool`);
		const maxMessages = PROPERTIES.find((x) => x.p.name === 'maxMessages').p;
		expect(TOOL_DESCRIPTIONS.conversation.getContext).toContain(
			`default ${maxMessages.default}, at most ${maxMessages.typeOptions.maxValue}`,
		);
		const maxCharacters = PROPERTIES.find((x) => x.p.name === 'maxCharacters').p;
		expect(TOOL_DESCRIPTIONS.conversation.getContext).toContain(
			`by default at most ${maxCharacters.default.toLocaleString('en-US')} characters`,
		);
	});

	test('no text claims an order the spec does not state, or that opening a link decides', () => {
		const all = [
			...PROPERTIES.flatMap(({ at, p }) => texts(p).map((t) => [at, t])),
			...Object.entries(TOOL_DESCRIPTIONS).flatMap(([r, ops]) =>
				Object.entries(ops).map(([op, t]) => [`tool ${r}.${op}`, t]),
			),
		];
		const claims =
			/newest first|most recently created first|by opening a link|until one is opened|answer by a link/i;
		expect(all.filter(([, t]) => claims.test(t)).map(([at]) => at)).toEqual([]);
	});
});
