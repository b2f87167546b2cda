'use strict';
/**
 * Node properties as Markdown for docs/node-reference.md: one table row per field and per option of a
 * collection (nested ones named by their path), with type, limits, default, values, description, hint and
 * when n8n shows it (displayOptions in words). Pure: the same properties always give the same text.
 */

const TYPES = {
	string: 'Text',
	number: 'Number',
	boolean: 'Boolean',
	options: 'Choice',
	multiOptions: 'Choices',
	collection: 'Collection',
	fixedCollection: 'Group',
	resourceLocator: 'Record picker',
	json: 'JSON',
	dateTime: 'Date and time',
	notice: 'Notice',
};

/** Text for a table cell: one line, no cell breaks, and outside code no HTML read out of `<token>`. */
function cell(text) {
	const parts = String(text)
		.replace(/\s*\n\s*/g, ' ')
		.replace(/\|/g, '\\|')
		.split(/(`+)/);
	let out = '';
	for (let i = 0; i < parts.length; i++) {
		const close = parts[i].startsWith('`') ? parts.indexOf(parts[i], i + 1) : -1;
		if (close > i) {
			out += parts.slice(i, close + 1).join('');
			i = close;
		} else out += parts[i].replace(/</g, '&lt;');
	}
	return out;
}

/** A value as inline code, with a fence longer than any backtick run inside it. */
function code(value) {
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	const run = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
	const fence = '`'.repeat(run + 1);
	const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
	return `${fence}${pad}${text}${pad}${fence}`;
}

/** An option of a choice by its value, as the editor shows it. */
function optionName(property, value) {
	const option = (property?.options ?? []).find((o) => o.value === value);
	return option ? `*${option.name}*` : code(value);
}

function cnd(value) {
	const [[op, arg]] = Object.entries(value._cnd);
	const words = {
		eq: `is ${arg}`,
		not: `is not ${arg}`,
		gte: `≥ ${arg}`,
		lte: `≤ ${arg}`,
		gt: `> ${arg}`,
		lt: `< ${arg}`,
		between: arg && `between ${arg.from} and ${arg.to}`,
		startsWith: `starts with ${code(arg)}`,
		endsWith: `ends with ${code(arg)}`,
		includes: `includes ${code(arg)}`,
		regex: `matches ${code(arg)}`,
		exists: 'is set',
	};
	return words[op] ?? `${op} ${code(arg)}`;
}

/** One condition value in words, read against the property it names (its options, a boolean's on/off). */
function valueWords(property, value) {
	if (value !== null && typeof value === 'object' && value._cnd) return cnd(value);
	if (typeof value === 'boolean' && (!property || property.type === 'boolean'))
		return value ? 'on' : 'off';
	if (property && (property.type === 'options' || property.type === 'multiOptions'))
		return optionName(property, value);
	return code(value);
}

/** Whether one of a condition's values lets `actual` through, as n8n reads them (plain values and `_cnd`). */
function matches(values, actual) {
	return values.some((value) => {
		if (value === null || typeof value !== 'object' || !value._cnd) return value === actual;
		const [[op, arg]] = Object.entries(value._cnd);
		const text = String(actual ?? '');
		const test = {
			eq: () => actual === arg,
			not: () => actual !== arg,
			gte: () => actual >= arg,
			lte: () => actual <= arg,
			gt: () => actual > arg,
			lt: () => actual < arg,
			between: () => actual >= arg.from && actual <= arg.to,
			startsWith: () => text.startsWith(arg),
			endsWith: () => text.endsWith(arg),
			includes: () => text.includes(arg),
			regex: () => new RegExp(arg).test(text),
			exists: () => actual !== undefined && actual !== null && actual !== '',
		}[op];
		return test ? test() : true;
	});
}

/** The versions (of `versions`) a condition on `@version` lets through. */
const versionsMatching = (values, versions) => versions.filter((v) => matches(values, v));

/** The versions of `versions` in which n8n shows a property (its own `@version` conditions only). */
function versionsOf(property, versions) {
	let shown = versions;
	const show = property.displayOptions?.show?.['@version'];
	const hide = property.displayOptions?.hide?.['@version'];
	if (show) shown = versionsMatching(show, shown);
	if (hide) shown = shown.filter((v) => !versionsMatching(hide, [v]).length);
	return shown;
}

/** "version 2", "versions 1 and 2", or "version 2 and newer" when that is the node's last one. */
function versionWords(shown, versions) {
	if (shown.length === 1 && shown[0] === versions[versions.length - 1] && versions.length > 1)
		return `version ${shown[0]} and newer`;
	if (shown.length === 1) return `version ${shown[0]}`;
	return `versions ${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/**
 * When n8n shows the property, in words, leaving out the keys `skip` names (the resource and operation,
 * which the section's heading already says) and `@version` (the Versions note says it).
 * `scope` finds the property a key names: its siblings first, then the node's top level.
 */
function shownWhen(property, scope, skip = []) {
	const parts = [];
	for (const [kind, words] of [
		['show', 'shown when'],
		['hide', 'hidden when'],
	]) {
		const conditions = Object.entries(property.displayOptions?.[kind] ?? {}).filter(
			([key]) => !skip.includes(key) && key !== '@version',
		);
		if (!conditions.length) continue;
		const said = conditions.map(([key, values]) => {
			if (key === '@tool') return 'the node is an AI Agent tool';
			const target = scope(key.replace(/^\//, ''), key.startsWith('/'));
			const label = target ? `*${target.displayName}*` : code(key);
			const list = values.map((v) => valueWords(target, v));
			const joined =
				list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : list[0];
			return `${label} is ${joined}`.replace(
				/ is (is |≥|≤|>|<|between|starts|ends|includes|matches)/,
				' $1',
			);
		});
		parts.push(`${words} ${said.join(' and ')}`);
	}
	return parts.join('; ');
}

function typeWords(property) {
	const t = property.typeOptions ?? {};
	let words = TYPES[property.type] ?? property.type;
	if (property.type === 'fixedCollection' && t.multipleValues) words = 'List of groups';
	if (property.type === 'string' && t.password) words = 'Text (password)';
	if (property.type === 'number') {
		const { minValue: min, maxValue: max } = t;
		if (min !== undefined && max !== undefined) words += `, ${min} to ${max}`;
		else if (min !== undefined) words += `, at least ${min}`;
		else if (max !== undefined) words += `, at most ${max}`;
		if (t.numberPrecision)
			words += `, ${t.numberPrecision} decimal${t.numberPrecision > 1 ? 's' : ''}`;
	}
	if (property.required) words += ', required';
	return words;
}

function defaultWords(property) {
	if (property.defaultText) return property.defaultText;
	if (property.variants)
		return property.variants.map((v) => `${defaultWords(v.property)} (${v.words})`).join(', ');
	const d = property.default;
	if (property.type === 'notice') return '';
	if (property.type === 'collection' || (property.type === 'fixedCollection' && isEmpty(d)))
		return '';
	if (property.type === 'resourceLocator') return d?.value ? code(d.value) : 'empty';
	if (property.type === 'options') return optionName(property, d);
	if (property.type === 'multiOptions')
		return Array.isArray(d) && d.length ? d.map((v) => optionName(property, v)).join(', ') : 'none';
	if (d === '' || d === undefined || d === null) return 'empty';
	return code(d);
}

const isEmpty = (value) =>
	value === undefined ||
	(typeof value === 'object' && value !== null && !Object.keys(value).length);

/** The description cell: the description, the hint, the choices, the picker's modes and when it shows. */
function detailWords(property, scope, skip, extra = []) {
	const parts = [];
	if (property.type === 'notice') parts.push(property.displayName);
	if (property.description) parts.push(sentence(property.description));
	else if (property.type === 'collection' && property.placeholder)
		parts.push(`Optional fields, each added with *${property.placeholder}*.`);
	if (property.hint) parts.push(`Hint: ${sentence(property.hint)}`);
	if ((property.type === 'options' || property.type === 'multiOptions') && property.options) {
		const choices = property.options.map(
			(o) => `*${o.name}* (${code(o.value)})${o.description ? `: ${o.description}` : ''}`,
		);
		parts.push(`Choices: ${choices.join('; ')}.`);
	}
	if (property.typeOptions?.loadOptionsMethod) parts.push('Choices loaded from the service.');
	if (property.type === 'resourceLocator') {
		const modes = (property.modes ?? []).map((m) =>
			m.placeholder ? `*${m.displayName}* (e.g. ${code(m.placeholder)})` : `*${m.displayName}*`,
		);
		parts.push(`Picked ${modes.join(' or ')}.`);
	}
	const when = shownWhen(property, scope, skip);
	if (when) parts.push(`${when[0].toUpperCase()}${when.slice(1)}.`);
	parts.push(...extra);
	return parts.join(' ');
}

/** A description as one sentence of Markdown: n8n's few HTML tags read out, a full stop at the end. */
function sentence(text) {
	const plain = text
		.replace(/<a href="([^"]+)"[^>]*>([^<]*)<\/a>/g, '[$2]($1)')
		.replace(/<\/li>\s*<li>/g, '; ')
		.replace(/<\/?(ul|ol|li|b|i|em|strong|code|br|p)\s*\/?>/g, ' ')
		.replace(/\s+([;:,.])/g, '$1')
		.replace(/\s+/g, ' ')
		.trim();
	return /[.!?]$/.test(plain) ? plain : `${plain}.`;
}

/**
 * The table rows of `properties` and every option nested in them. `path` names the collections above;
 * `notes(property)` adds words to a property's description (its versions, say).
 * @param {any[]} properties
 * @param {{ scope: Function, skip?: string[], path?: string[], notes?: (property: any, top: boolean) => string[] }} options
 */
function rows(properties, { scope, skip = [], path = [], notes = () => [] }) {
	const out = [];
	for (const property of properties) {
		if (property.type === 'notice') {
			out.push([
				'Notice',
				'',
				'',
				detailWords(property, scope, skip, notes(property, !path.length)),
			]);
			continue;
		}
		const name = [...path, `**${property.displayName}**`].join(' → ');
		out.push([
			`${name} ${code(property.name)}`,
			typeWords(property),
			defaultWords(property),
			detailWords(property, scope, skip, notes(property, !path.length)),
		]);
		const nested = (siblings) => (key, root) =>
			(!root && siblings.find((p) => p.name === key)) || scope(key, true);
		if (property.type === 'collection') {
			const options = property.options ?? [];
			out.push(
				...rows(options, { scope: nested(options), path: [...path, property.displayName], notes }),
			);
		}
		if (property.type === 'fixedCollection') {
			const groups = property.options ?? [];
			for (const group of groups) {
				const values = group.values ?? [];
				const groupPath =
					groups.length > 1
						? [...path, property.displayName, group.displayName]
						: [...path, property.displayName];
				out.push(...rows(values, { scope: nested(values), path: groupPath, notes }));
			}
		}
	}
	return out;
}

/** A Markdown table of property rows. */
function table(propertyRows) {
	const lines = ['| Field | Type | Default | Description |', '|---|---|---|---|'];
	for (const row of propertyRows) lines.push(`| ${row.map(cell).join(' | ')} |`);
	return lines.join('\n');
}

module.exports = {
	cell,
	matches,
	code,
	optionName,
	rows,
	shownWhen,
	table,
	versionsOf,
	versionWords,
	defaultWords,
	typeWords,
};
