/**
 * Reactions, pure: the service sends them as an array of `{ <name>: [<reactor>, …] }` objects (or one
 * such object); the node works on one merged map and writes the whole map back.
 */

export type ReactionMap = Record<string, string[]>;

/**
 * A map with no prototype: a reaction may be named `constructor` or `__proto__`, which on a plain object
 * read inherited members (`map.constructor ?? []` is a function) or set its prototype.
 */
function emptyMap(): ReactionMap {
	return Object.create(null) as ReactionMap;
}

function copyOf(map: ReactionMap): ReactionMap {
	return Object.assign(emptyMap(), map);
}

/** The service's reactions value as one map; duplicates and empty names dropped. */
export function reactionsFromService(value: unknown): ReactionMap {
	const parts = Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : [];
	const merged = emptyMap();
	for (const part of parts) {
		if (!part || typeof part !== 'object' || Array.isArray(part)) continue;
		for (const [name, reactors] of Object.entries(part as Record<string, unknown>)) {
			const list = (Array.isArray(reactors) ? reactors : [reactors]).filter(
				(r): r is string => typeof r === 'string',
			);
			addReactors(merged, name, list);
		}
	}
	return merged;
}

function addReactors(map: ReactionMap, name: string, reactors: string[]): void {
	if (name === '') return;
	const next = [...new Set([...(map[name] ?? []), ...reactors])];
	if (next.length > 0) map[name] = next;
}

export function withReaction(map: ReactionMap, name: string, reactor: string): ReactionMap {
	const next = copyOf(map);
	addReactors(next, name, [reactor]);
	return next;
}

export function withoutReaction(map: ReactionMap, name: string, reactor: string): ReactionMap {
	const next = copyOf(map);
	const left = (next[name] ?? []).filter((r) => r !== reactor);
	if (left.length > 0) next[name] = left;
	else delete next[name];
	return next;
}

/**
 * Whether the Reactions rows field holds no row: what the editor stores when the field is added and
 * left empty, or its last row deleted. Written as is, it would remove every reaction of the message.
 */
export function hasNoRows(value: unknown): boolean {
	if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
	const rows = (value as { reaction?: unknown }).reaction;
	return Object.keys(value).length === 0 || (Array.isArray(rows) && rows.length === 0);
}

/**
 * What a user put into the Reactions field, as a map. Accepted: the field's own rows
 * (`{ reaction: [{ name, reactors }] }`, reactors comma-separated or a list), or from an expression
 * a map `{ like: ['ann'] }`, the service's array form, or either as JSON text.
 * Throws an Error saying what is wrong; the caller names the item and the field.
 */
export function reactionsFromInput(value: unknown): ReactionMap {
	let input = value;
	if (typeof input === 'string') {
		if (input.trim() === '') return {};
		input = parseJson(input);
		if (input === undefined) {
			throw new Error(
				'is text that is not JSON; expected rows of name and reactors, or an object like {"like": ["ann"]}',
			);
		}
	}
	if (input && typeof input === 'object' && !Array.isArray(input) && 'reaction' in input) {
		const rows = (input as { reaction: unknown }).reaction;
		const list = Array.isArray(rows) ? rows : [rows];
		const map = emptyMap();
		for (const [index, row] of list.entries()) {
			const { name, reactors } = (row ?? {}) as { name?: unknown; reactors?: unknown };
			if (typeof name !== 'string' || name.trim() === '')
				throw new Error(`row ${index + 1} has no reaction name`);
			if (
				Array.isArray(reactors) &&
				!reactors.every((r) => typeof r === 'string' && r.trim() !== '')
			) {
				throw new Error(
					`row ${index + 1} ("${name.trim()}") must list reactors as non-empty names`,
				);
			}
			if (
				!Array.isArray(reactors) &&
				reactors !== undefined &&
				reactors !== null &&
				typeof reactors !== 'string' &&
				typeof reactors !== 'number' // a contact ID from an expression
			) {
				throw new Error(
					`row ${index + 1} ("${name.trim()}") must list reactors as text, not ${typeof reactors}`,
				);
			}
			const names = (
				Array.isArray(reactors) ? (reactors as string[]) : String(reactors ?? '').split(',')
			)
				.map((r) => r.trim())
				.filter((r) => r !== '');
			// The write replaces the whole set: a row without reactors would clear the reaction silently.
			if (names.length === 0)
				throw new Error(
					`row ${index + 1} ("${name.trim()}") has no reactors; to remove a reaction, leave its row out`,
				);
			addReactors(map, name.trim(), names);
		}
		return map;
	}
	const parts = Array.isArray(input) ? input : [input];
	for (const part of parts) {
		if (!part || typeof part !== 'object' || Array.isArray(part)) {
			throw new Error(
				'must map reaction names to lists of reactors, like {"like": ["ann", "bob"]}',
			);
		}
		for (const [name, reactors] of Object.entries(part)) {
			if (name.trim() === '') throw new Error('has a reaction with an empty name');
			const list = Array.isArray(reactors) ? reactors : [reactors];
			if (!list.every((r) => typeof r === 'string')) {
				throw new Error(`"${name}" must be a list of reactor names (strings)`);
			}
			if (list.some((r) => (r as string).trim() === '')) {
				throw new Error(`"${name}" has an empty reactor name`);
			}
		}
	}
	return reactionsFromService(parts);
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}
