'use strict';
/**
 * The demo's service keeps its data between starts, as a real service does: a snapshot of the store in a
 * file, restored at the next start. A new start never hands out an id an earlier one used, so the state
 * n8n's triggers keep (which ids they delivered) stays true, and a person's workflows can be kept too.
 */
const fs = require('node:fs');
const path = require('node:path');
const { seedDemo } = require('./seed');

const MAPS = ['contacts', 'groups', 'conversations', 'messages'];

/** The store's records and id counters, as JSON text. */
function snapshotOf(store) {
	const data = { counters: store.counters };
	for (const name of MAPS) data[name] = [...store[name].values()];
	return JSON.stringify(data);
}

/** Replaces the store's records and counters with a snapshot's. */
function restore(store, text) {
	const data = JSON.parse(text);
	for (const name of MAPS) {
		store[name].clear();
		for (const record of data[name] ?? []) store[name].set(record.id, record);
	}
	store.counters = { ...store.counters, ...data.counters };
}

/**
 * A `seed` for createSandbox: the snapshot in `file` when there is one, else the demo data; and `save()`,
 * which writes the snapshot when the store changed since the last write (atomically: a crash leaves the
 * previous one).
 */
function persistentDemo(file) {
	let store;
	let savedVersion = -1;
	return {
		seed(s) {
			store = s;
			if (fs.existsSync(file)) restore(store, fs.readFileSync(file, 'utf8'));
			else seedDemo(store);
		},
		save() {
			if (!store || store.version === savedVersion) return;
			fs.mkdirSync(path.dirname(file), { recursive: true });
			fs.writeFileSync(`${file}.tmp`, snapshotOf(store));
			fs.renameSync(`${file}.tmp`, file);
			savedVersion = store.version;
		},
	};
}

module.exports = { persistentDemo, snapshotOf, restore };
