'use strict';
/**
 * What the scenarios compare in a node panel: the fields shown (top level, or inside one collection)
 * against those expected.js derives from the compiled description, with the panel given time to settle.
 */
const { visibleParameters, settle } = require('./browser');

const describeField = (f) => `${f.label}${f.required ? ' *' : ''} [${f.name}] = "${f.value}"`;
const sameValue = (expected, shown) =>
	expected.trim().toLowerCase() === String(shown).trim().toLowerCase();

/**
 * Waits until the panel shows `expected` (names in order and values), or gives up and compares:
 * returns { shown, problems } with one line per difference (names, labels, required marks, values).
 * `within`: a collection's name, to compare the fields inside it; `requiredMarks: false` for a node
 * just added, whose empty required fields n8n leaves unmarked until they are touched.
 */
async function panelProblems(page, expected, { within, requiredMarks = true } = {}) {
	const wantedNames = expected.map((f) => f.name).join(',');
	// The panel re-renders after a choice, and a collection may still say "Loading fields...".
	const shown = await settle(
		() => visibleParameters(page, within),
		(fields) =>
			fields.map((f) => f.name).join(',') === wantedNames &&
			expected.every(
				(want) =>
					want.name === '(notice)' ||
					sameValue(want.value, fields.find((f) => f.name === want.name)?.value ?? ''),
			),
		5_000,
	);
	const problems = [];
	const names = shown.map((f) => f.name).join(',');
	if (names !== wantedNames) problems.push(`fields ${names || '(none)'} instead of ${wantedNames}`);
	for (const want of expected) {
		const got = shown.find((f) => f.name === want.name);
		if (!got) continue;
		if (want.name === '(notice)') {
			if (got.label !== want.label)
				problems.push(`notice "${got.label}" instead of "${want.label}"`);
			continue;
		}
		if (got.label !== want.label)
			problems.push(`${want.name}: label "${got.label}" instead of "${want.label}"`);
		if (requiredMarks && got.required !== want.required)
			problems.push(`${want.name}: ${want.required ? 'no' : 'a'} required mark`);
		if (!sameValue(want.value, got.value))
			problems.push(`${want.name}: shows "${got.value}" instead of "${want.value}"`);
	}
	return { shown, problems };
}

/** Compares the panel (or one collection of it) with `expected` as a soft expectation, and logs it. */
async function expectPanel(t, where, expected, options) {
	const { shown, problems } = await panelProblems(t.page, expected, options);
	t.log(`${problems.length ? 'MISMATCH' : 'ok'} ${where}: ${shown.map(describeField).join(' | ')}`);
	t.expect(problems.length === 0, `${where}: ${problems.join('; ')}`);
	return shown;
}

module.exports = { panelProblems, expectPanel, describeField };
