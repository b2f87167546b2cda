'use strict';
/**
 * What the parameter panel should show, derived from the one place that defines it: the compiled node
 * descriptions in dist/ (what n8n itself renders), with displayOptions applied the way n8n applies them.
 * Nothing here copies a field list, so a field added or moved in the nodes is expected automatically.
 */
const path = require('node:path');
const { ROOT } = require('../lib/n8n');

/** A node's description; for a versioned node (the trigger), the description of `version`. */
function loadNode(file, className, version) {
	const modulePath = path.join(ROOT, 'dist', file);
	delete require.cache[require.resolve(modulePath)];
	const node = new (require(modulePath)[className])();
	return node.nodeVersions
		? node.nodeVersions[version ?? node.currentVersion].description
		: node.description;
}

const messagingDescription = () => loadNode('nodes/Messaging/Messaging.node.js', 'Messaging');
const triggerDescription = (version) =>
	loadNode('nodes/MessagingTrigger/MessagingTrigger.node.js', 'MessagingTrigger', version);

function conditionHolds(wanted, actual, version) {
	if (!Array.isArray(wanted))
		throw new Error(
			`displayOptions condition ${JSON.stringify(wanted)}: only value lists are supported here`,
		);
	return wanted.some((w) => {
		if (w && typeof w === 'object' && '_cnd' in w) return comparisonHolds(w._cnd, actual);
		return w === actual;
	});
}

/** n8n's `_cnd` comparisons, those the nodes use (on `@version`). */
function comparisonHolds(condition, actual) {
	const [[operator, value]] = Object.entries(condition);
	const compare = {
		eq: actual === value,
		not: actual !== value,
		gte: actual >= value,
		lte: actual <= value,
		gt: actual > value,
		lt: actual < value,
	};
	if (!(operator in compare))
		throw new Error(`displayOptions _cnd ${operator} is not supported here`);
	return compare[operator];
}

/** n8n's rule: shown when every `show` key matches and no `hide` key does. */
function isDisplayed(property, values, version) {
	const { show, hide } = property.displayOptions ?? {};
	const valueOf = (key) => (key === '@version' ? version : values[key.replace(/^\//, '')]);
	if (
		show &&
		!Object.entries(show).every(([key, wanted]) => conditionHolds(wanted, valueOf(key), version))
	)
		return false;
	if (
		hide &&
		Object.entries(hide).some(([key, wanted]) => conditionHolds(wanted, valueOf(key), version))
	)
		return false;
	return true;
}

/** The value n8n displays for a parameter holding `value`. */
function shownValue(property, value) {
	switch (property.type) {
		case 'options':
			return optionName(property, value);
		case 'multiOptions':
			return (value ?? []).map((v) => optionName(property, v)).join(', ');
		case 'boolean':
			return String(value);
		case 'resourceLocator': {
			const mode = property.modes.find(
				(m) => m.name === (value?.mode ?? property.default?.mode ?? property.modes[0].name),
			);
			return mode.displayName;
		}
		case 'collection':
		case 'fixedCollection':
			return '';
		default:
			return value === undefined || value === null ? '' : String(value);
	}
}

const versionOf = (description) =>
	Array.isArray(description.version) ? Math.max(...description.version) : description.version;

/** Every displayed parameter's value for the given choices, the others at their defaults. */
function panelValues(description, choices, version) {
	const values = {};
	// Again until nothing changes: a field may depend on one defined after it (Check Every on Unit).
	for (let added = true; added; ) {
		added = false;
		for (const p of description.properties)
			if (!(p.name in values) && isDisplayed(p, { ...values, ...choices }, version)) {
				values[p.name] = p.default;
				added = true;
			}
	}
	return Object.assign(values, choices);
}

const field = (p, value) => ({
	name: p.name,
	label: p.displayName,
	type: p.type,
	required: p.required === true,
	value: shownValue(p, value),
});

/**
 * The top-level fields of the panel for the given choices (e.g. { resource, operation }), every other
 * parameter at its default: [{ name, label, type, required, value }] in the description's order.
 */
function expectedPanel(description, choices) {
	const version = versionOf(description);
	const values = panelValues(description, choices, version);
	const shown = [];
	for (const p of description.properties) {
		if (p.type === 'hidden' || !isDisplayed(p, values, version)) continue;
		if (p.type === 'notice') {
			shown.push({ ...field(p, ''), name: '(notice)', value: '' });
			continue;
		}
		shown.push(field(p, values[p.name]));
	}
	return shown;
}

/**
 * The fields shown inside the collection `name` of the panel for `choices`: of a collection, the
 * options in `values`, in the description's order; of a fixed collection, its one entry's fields
 * (their displayOptions read on the entry), each with its value from `values` or its default.
 */
function expectedNested(description, choices, name, values = {}) {
	const version = versionOf(description);
	const panel = panelValues(description, choices, version);
	const property = description.properties.find(
		(p) => p.name === name && isDisplayed(p, panel, version),
	);
	if (property.type === 'collection')
		return property.options.filter((o) => o.name in values).map((o) => field(o, values[o.name]));
	const [group] = property.options;
	const entry = {};
	for (const p of group.values) entry[p.name] = p.default;
	Object.assign(entry, values);
	return group.values
		.filter((p) => p.type !== 'hidden' && isDisplayed(p, entry, version))
		.map((p) => field(p, entry[p.name]));
}

const optionName = (property, value) =>
	property.options?.find((o) => o.value === value)?.name ??
	(value === undefined ? '' : String(value));

/** The display names a collection's Add Option list offers before anything is added, in order. */
function collectionOptionNames(description, choices, name) {
	const version = versionOf(description);
	const panel = panelValues(description, choices, version);
	return description.properties
		.find((p) => p.name === name && isDisplayed(p, panel, version))
		.options.map((o) => o.displayName);
}

/** Every (resource, operation) pair of the node, with the options' display names, in the description's order. */
function operations(description) {
	const resource = description.properties.find((p) => p.name === 'resource');
	const pairs = [];
	for (const r of resource.options) {
		const operation = description.properties.find(
			(p) => p.name === 'operation' && isDisplayed(p, { resource: r.value }, 1),
		);
		for (const o of operation.options) {
			pairs.push({
				resource: r.value,
				resourceName: r.name,
				operation: o.value,
				operationName: o.name,
				action: o.action,
			});
		}
	}
	return pairs;
}

module.exports = {
	messagingDescription,
	triggerDescription,
	expectedPanel,
	expectedNested,
	collectionOptionNames,
	operations,
	isDisplayed,
};
