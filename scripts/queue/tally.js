'use strict';
/**
 * Pure counting for the queue suite: what was created at the service against what the triggered
 * workflow recorded ("seen" messages), overall and per fault kind; and the order inside executions.
 */

/**
 * @param {Array<{id: string, phase: string}>} created in creation order
 * @param {Array<{id: string, execution: string, index: number, redelivery: boolean, attempt: string}>} seen in arrival order
 */
function tally(created, seen) {
	const deliveries = new Map();
	for (const record of seen) {
		if (!deliveries.has(record.id)) deliveries.set(record.id, []);
		deliveries.get(record.id).push(record);
	}
	const phases = new Map();
	const row = (phase) => {
		if (!phases.has(phase)) {
			phases.set(phase, {
				phase,
				created: 0,
				delivered: 0,
				lost: 0,
				duplicated: 0,
				extraDeliveries: 0,
				markedRedeliveries: 0,
				unmarkedDuplicates: 0,
			});
		}
		return phases.get(phase);
	};
	const total = row('all');
	const createdIds = new Set();
	const lostIds = [];
	const unmarked = [];
	/** Which executions delivered the repeats: "x<first> a<attempt> -> x<next> a<attempt>" and how many. */
	const repeatedIn = new Map();
	for (const { id, phase } of created) {
		createdIds.add(id);
		const got = deliveries.get(id) ?? [];
		for (const r of [row(phase), total]) {
			r.created += 1;
			if (got.length === 0) r.lost += 1;
			else r.delivered += 1;
			if (got.length > 1) {
				r.duplicated += 1;
				r.extraDeliveries += got.length - 1;
				// Every delivery after the first must say it is a redelivery.
				const repeats = got.slice(1);
				const marked = repeats.filter((d) => d.redelivery).length;
				r.markedRedeliveries += marked;
				r.unmarkedDuplicates += repeats.length - marked;
			}
		}
		if (got.length === 0) lostIds.push(id);
		if (got.length > 1) {
			const path = got.map((d) => `x${d.execution} a${d.attempt}`).join(' -> ');
			repeatedIn.set(path, (repeatedIn.get(path) ?? 0) + 1);
		}
		if (got.slice(1).some((d) => !d.redelivery)) unmarked.push(id);
	}
	const unknown = [...deliveries.keys()].filter((id) => !createdIds.has(id));
	const rows = [...phases.values()].filter((r) => r.phase !== 'all');
	return {
		total,
		phases: rows,
		lostIds,
		unmarkedIds: unmarked,
		unknownIds: unknown,
		repeatedIn,
	};
}

/**
 * Oldest first inside each execution: the items' message ids (the service's ids grow with creation)
 * must rise with the item index. Returns the executions where they do not.
 */
function orderViolations(seen) {
	const byExecution = new Map();
	for (const record of seen) {
		if (!byExecution.has(record.execution)) byExecution.set(record.execution, []);
		byExecution.get(record.execution).push(record);
	}
	const violations = [];
	for (const [execution, records] of byExecution) {
		const sorted = [...records].sort((a, b) => a.index - b.index);
		for (let i = 1; i < sorted.length; i++) {
			if (!(sorted[i - 1].id < sorted[i].id)) {
				violations.push({ execution, before: sorted[i - 1], after: sorted[i] });
				break;
			}
		}
	}
	return { executions: byExecution.size, violations };
}

module.exports = { tally, orderViolations };
