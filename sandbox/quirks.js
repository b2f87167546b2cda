'use strict';
/**
 * The sandbox's quirks: behaviours of real services the spec does not show (validateQuirks lists them), and
 * how each reshapes an answer or reads a request back (numeric ids).
 */
const { validateAttachmentQuirks } = require('./attachments');

const LIST_SHAPES = ['normal', 'no-data', 'null-data', 'bare-array', 'no-has-more'];
const TIMESTAMP_FIELDS = [
	'created_at',
	'updated_at',
	'read_at',
	'last_active_at',
	'last_opened_at',
	'archived_at',
];

/**
 * Quirks: behaviours of real services the spec does not show, all off by default.
 *   listShape: 'normal' | 'no-data' | 'null-data' | 'bare-array' | 'no-has-more' (`data` only)
 *   endlessPages: false | 'same' (has_more forever, the cursor ignored) | 'new' (has_more forever, invented records)
 *   timestampsAsStrings: false | true (every timestamp field) | ['created_at', …] (numbers sent as numeric strings)
 *   echoAuthorization: false | true (every error text ends with the request's Authorization header)
 *   numericIds: false | true (ids are numbers: msg_00000042 is sent as 42, and 42 is read back as it)
 *   refuseLargePages: false | true (a limit above maxPageSize is a 400 naming the maximum, not a shorter page)
 *   unknownListsEmpty: false | true (messages of a conversation that does not exist list as an empty page, not a 404)
 *   reactionsAsObject: false | true (a message's reactions as one `{name: reactors}` object, not an array of them)
 *   archivedListedApart: false | true (the messages of archived conversations are left out of the listing of every conversation)
 *   idsIgnoreCase: false | true (an id the client sends, in the path or a parameter, is matched whatever its case, as a
 *     service storing UUIDs does; answers write it as stored)
 *   attachmentFields, attachmentUpload, attachmentsOrigin, inlineAttachments: see ./attachments.js
 */
function validateQuirks(quirks) {
	const known = [
		'listShape',
		'endlessPages',
		'timestampsAsStrings',
		'echoAuthorization',
		'numericIds',
		'refuseLargePages',
		'unknownListsEmpty',
		'reactionsAsObject',
		'archivedListedApart',
		'idsIgnoreCase',
		'attachmentFields',
		'attachmentUpload',
		'attachmentsOrigin',
		'inlineAttachments',
	];
	validateAttachmentQuirks(quirks);
	for (const key of Object.keys(quirks))
		if (!known.includes(key)) throw new Error(`Unknown quirk ${key} (known: ${known.join(', ')})`);
	if (quirks.listShape !== undefined && !LIST_SHAPES.includes(quirks.listShape)) {
		throw new Error(`quirks.listShape is one of ${LIST_SHAPES.join(', ')}`);
	}
	if (![undefined, false, 'same', 'new'].includes(quirks.endlessPages))
		throw new Error("quirks.endlessPages is false, 'same' or 'new'");
	const stamps = quirks.timestampsAsStrings;
	if (
		Array.isArray(stamps)
			? !stamps.every((f) => TIMESTAMP_FIELDS.includes(f))
			: ![undefined, false, true].includes(stamps)
	) {
		throw new Error(
			`quirks.timestampsAsStrings is true, false or a list of ${TIMESTAMP_FIELDS.join(', ')}`,
		);
	}
	return quirks;
}

/** A successful answer's payload as the quirks send it. */
function shapeAnswer(payload, quirks) {
	let shaped = quirks.timestampsAsStrings
		? stringifyTimestamps(payload, quirks.timestampsAsStrings)
		: payload;
	if (quirks.numericIds) shaped = numericIds(shaped);
	if (quirks.reactionsAsObject) shaped = reactionsAsObject(shaped);
	return shaped;
}

function shapeList(listShape, hasMore, data) {
	switch (listShape) {
		case 'no-data':
			return { has_more: hasMore };
		case 'null-data':
			return { has_more: hasMore, data: null };
		case 'bare-array':
			return data;
		case 'no-has-more':
			return { data };
		default:
			return { has_more: hasMore, data };
	}
}

function stringifyTimestamps(value, fields) {
	const wanted = fields === true ? TIMESTAMP_FIELDS : fields;
	const walk = (v) => {
		if (Array.isArray(v)) return v.map(walk);
		if (v === null || typeof v !== 'object') return v;
		return Object.fromEntries(
			Object.entries(v).map(([k, x]) => [
				k,
				wanted.includes(k) && typeof x === 'number' ? String(x) : walk(x),
			]),
		);
	};
	return walk(value);
}

/** reactionsAsObject: each message's `[{like: [...]}, {rocket: [...]}]` as `{like: [...], rocket: [...]}`. */
function reactionsAsObject(value) {
	const message = (m) =>
		Array.isArray(m?.reactions) ? { ...m, reactions: Object.assign({}, ...m.reactions) } : m;
	if (Array.isArray(value?.data)) return { ...value, data: value.data.map(message) };
	return message(value);
}

/** The id fields a numericIds service sends as numbers, and the prefix each has in the store. */
const ID_PREFIX = {
	id: undefined, // any of them
	conversation_id: 'conv',
	contact_id: 'ct',
	group_id: 'grp',
	pinned_message_id: 'msg',
};

/** numericIds: every stored id of digits (msg_00000042, ct_00000007) as its number; others (ct_ann) as they are. */
function numericIds(value) {
	const walk = (v, key) => {
		if (Array.isArray(v)) return key === 'contact_ids' ? v.map((x) => walk(x, 'id')) : v.map(walk);
		if (typeof v === 'string' && key in ID_PREFIX && /^[a-z]+_\d+$/.test(v))
			return Number(v.slice(v.indexOf('_') + 1));
		if (v === null || typeof v !== 'object') return v;
		return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
	};
	return walk(value);
}

/** numericIds: a number the client sends back (in the path or a parameter) as the stored id it stands for. */
function storedIds(segments, params) {
	const stored = (prefix, text) =>
		/^\d+$/.test(String(text)) ? `${prefix}_${String(text).padStart(8, '0')}` : text;
	const collection = segments[1] === 'messages' ? 'msg' : 'conv';
	const path = segments.map((segment, i) => (i === 2 ? stored(collection, segment) : segment));
	const read = { ...params };
	if (read.starting_after !== undefined)
		read.starting_after = stored(collection, read.starting_after);
	for (const [field, prefix] of Object.entries(ID_PREFIX))
		if (prefix && read[field] !== undefined) read[field] = stored(prefix, read[field]);
	return [path, read];
}

/** idsIgnoreCase: the ids the client sends (in the path or a parameter) as the stored ones, which are lower case. */
function idsAnyCase(segments, params) {
	const lower = (text) => (typeof text === 'string' ? text.toLowerCase() : text);
	const path = segments.map((segment, i) => (i === 2 ? lower(segment) : segment));
	const read = { ...params };
	for (const field of ['starting_after', ...Object.keys(ID_PREFIX)])
		if (read[field] !== undefined) read[field] = lower(read[field]);
	return [path, read];
}

module.exports = { validateQuirks, shapeAnswer, shapeList, storedIds, idsAnyCase };
