/** Pure: what a list's probes show of its order, its cursor and its page size, and what the node does about each. */
import { PAGE_SIZE } from '../../../shared/paginate';
import { timestampValue } from '../../../shared/timestamps';
import type { Finding, ListFindings, ListName, ListProbe } from './observations';

const ONE: Record<ListName, string> = { messages: 'message', conversations: 'conversation' };

/** Every finding of a list that could not be read says why. */
function unreadable(name: ListName, probe: ListProbe, what: string): Finding {
	const refusals = probe.refused.map((r) => `limit=${r.limit} refused (${r.reason}); `).join('');
	return {
		result: 'unknown',
		status: 'unknown',
		evidence: `${refusals}GET /v1/${name} failed: ${probe.failure?.message ?? 'no answer'}`,
		nodeWill: `Get Many of ${name} fails with this error, so ${what} cannot be seen.`,
	};
}

const ORDER_WILL: Record<ListName, Record<string, string>> = {
	messages: {
		newest_first:
			'Get Many outputs messages in this order; Get Context and the trigger read from the first page on and stop once they have what they need.',
		oldest_first:
			'Get Many outputs messages in this order; Get Context reads a conversation to its end for its newest messages (at most 100 pages), and the trigger resumes from the last message it knows with the cursor.',
		unknown:
			'Get Many outputs messages in the service’s order; Get Context and the trigger tell the order from the messages’ times once there are some.',
	},
	conversations: {
		newest_first: 'Get Many outputs conversations in this order.',
		oldest_first: 'Get Many outputs conversations in this order.',
		unknown: 'Get Many outputs conversations in the service’s order.',
	},
};

/** The way most neighbouring records go in `created_at` (one late record does not turn it). */
export function orderFinding(name: ListName, probe: ListProbe): Finding {
	const records = probe.page?.records;
	if (!records) return unreadable(name, probe, 'the order');
	let rising = 0;
	let falling = 0;
	let before: number | undefined;
	for (const record of records) {
		const time = timestampValue(record.created_at);
		if (time === undefined) continue;
		if (before !== undefined && time > before) rising++;
		if (before !== undefined && time < before) falling++;
		before = time;
	}
	const result = falling > rising ? 'newest_first' : rising > falling ? 'oldest_first' : 'unknown';
	const evidence =
		rising + falling === 0
			? `${records.length} ${name} listed, fewer than two of them with different created_at`
			: `${Math.max(rising, falling)} of ${rising + falling} neighbouring ${name} with different created_at go ${falling > rising ? 'down' : rising > falling ? 'up' : 'either way'} (${probe.page?.request})`;
	const status =
		result === 'unknown'
			? 'unknown'
			: result === 'oldest_first' && name === 'messages'
				? 'adapted'
				: 'fine';
	return { result, status, evidence, nodeWill: ORDER_WILL[name][result] };
}

/** Whether the page after the first record is the first page's next record (`starting_after` honoured). */
export function cursorFinding(name: ListName, probe: ListProbe): Finding {
	const first = probe.page?.records;
	if (!first) return unreadable(name, probe, 'whether starting_after is honoured');
	const cursor = probe.cursor;
	if (!cursor) {
		return {
			result: 'unknown',
			status: 'unknown',
			evidence: `No ${ONE[name]} listed to page after`,
			nodeWill:
				'Get Many and the trigger page with starting_after; a service that ignores it is caught when it sends the same page again.',
		};
	}
	if (cursor.failure || !cursor.records) {
		return {
			result: 'refused',
			status: 'attention',
			evidence: `${cursor.request} failed: ${cursor.failure?.message ?? 'no answer'}`,
			nodeWill:
				'Get Many past the first page fails with this error, and so does the trigger when it pages: keep Limit within one page.',
		};
	}
	const ids = cursor.records.map((record) => String(record.id));
	const next = first[1]?.id;
	if (ids.includes(cursor.after)) {
		return {
			result: 'ignored',
			status: 'attention',
			evidence: `${cursor.request} listed ${cursor.after} again, the ${ONE[name]} it asks to start after`,
			nodeWill:
				'Get Many reads one page only: it stops with a warning instead of looping and outputs no record twice; the trigger warns of a possible gap, and on an oldest-first list each check fails saying the cursor was ignored.',
		};
	}
	if (next === undefined ? ids.length === 0 : ids[0] === String(next)) {
		return {
			result: 'honoured',
			status: 'fine',
			evidence:
				next === undefined
					? `${cursor.request} listed nothing after the only ${ONE[name]}`
					: `${cursor.request} listed ${String(next)}, the next ${ONE[name]} of the first page`,
			nodeWill:
				'Get Many and the trigger page with starting_after, the ID of the last record of each page.',
		};
	}
	return {
		result: 'unexpected',
		status: 'attention',
		evidence: `${cursor.request} listed ${ids[0] ?? 'nothing'}, not ${next === undefined ? 'nothing' : String(next)} (what follows on the first page)`,
		nodeWill:
			'Paging may skip records on this service; a page that brings nothing new ends it, and no record is output twice.',
	};
}

/** The largest page the service sends: asked for PAGE_SIZE, capped, or refused with a size its reason names. */
export function pageSizeFinding(name: ListName, probe: ListProbe): Finding {
	const refusals = probe.refused.map((r) => `limit=${r.limit} refused (${r.reason})`).join('; ');
	const page = probe.page;
	if (!page && probe.refused.length === 0) return unreadable(name, probe, 'the page size');
	if (!page) {
		return {
			result: 'refused',
			status: 'attention',
			evidence: `${refusals}${probe.failure ? `; then ${probe.failure.message}` : ''}`,
			nodeWill: `The node asks for ${PAGE_SIZE} a page, and after a refusal naming limit for the largest size the reason names (else 10): this service accepted none, so Get Many of ${name} and the trigger fail.`,
		};
	}
	const { limit, hasMore } = page;
	const count = page.records.length;
	const answered = `limit=${limit} answered ${count} ${name}`;
	if (probe.refused.length > 0) {
		return {
			result: `${limit} (${PAGE_SIZE} refused)`,
			status: 'adapted',
			evidence: `${refusals}; ${answered}`,
			nodeWill: `The node asks for ${PAGE_SIZE}, and after this refusal for ${limit} for the rest of the run: one refused request per run or trigger check.`,
		};
	}
	if (count > limit) {
		return {
			result: `ignores limit (${count} for ${limit})`,
			status: 'adapted',
			evidence: answered,
			nodeWill: 'The node keeps the records it needs of each page and pages on with the cursor.',
		};
	}
	if (count === limit) {
		return {
			result: String(limit),
			status: 'fine',
			evidence: answered,
			nodeWill: `The node asks for ${limit} a page.`,
		};
	}
	if (hasMore === undefined) {
		return {
			result: `${count}, no has_more`,
			status: 'adapted',
			evidence: `${answered} without has_more: a cap at ${count} and a list of ${count} look the same`,
			nodeWill:
				'Without has_more, the node asks for the next page while pages bring new records: one more request at the end of each listing.',
		};
	}
	if (hasMore && count === 0) {
		return {
			result: 'empty page with has_more',
			status: 'attention',
			evidence: `${answered} with has_more true`,
			nodeWill:
				'A page that brings nothing ends the paging with a warning: nothing more can be read.',
		};
	}
	if (hasMore) {
		return {
			result: `capped at ${count}`,
			status: 'adapted',
			evidence: `${answered} with has_more true`,
			nodeWill: `The node takes the ${count} each page brings and pages on with the cursor: about ${Math.ceil(limit / count)} times the requests of a service that sends ${limit}.`,
		};
	}
	return {
		result: `not reached (${count} ${name})`,
		status: 'fine',
		evidence: `${answered}, all there are (has_more false): a cap above ${count} cannot be seen`,
		nodeWill: `The node asks for ${limit} a page; a service that caps lower just sends fewer and the node pages on.`,
	};
}

export function listFindings(name: ListName, probe: ListProbe): ListFindings {
	return {
		order: orderFinding(name, probe),
		cursor: cursorFinding(name, probe),
		pageSize: pageSizeFinding(name, probe),
	};
}
