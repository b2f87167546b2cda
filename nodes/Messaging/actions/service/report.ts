/** Pure: Check Compatibility's one output item, from what its probes observed; `now` in epoch ms. */
import type { IDataObject } from 'n8n-workflow';

import { listFindings } from './listFindings';
import type {
	CompatibilityReport,
	Finding,
	FindingStatus,
	ListProbe,
	Observations,
} from './observations';
import {
	attachmentUrlsFinding,
	idsFinding,
	reactionsFinding,
	timestampUnitFinding,
} from './recordFindings';
import { errorBodyFinding, rateLimitFinding, writeProbeFinding } from './serviceFindings';

/** The records a list's probes brought, each once. */
function recordsOf(probe: ListProbe): IDataObject[] {
	const byId = new Map<string, IDataObject>();
	for (const record of [...(probe.page?.records ?? []), ...(probe.cursor?.records ?? [])])
		if (!byId.has(String(record.id))) byId.set(String(record.id), record);
	return [...byId.values()];
}

const STATUS_WORDS: Array<[FindingStatus, string]> = [
	['fine', 'fine'],
	['adapted', 'adapted to by the node'],
	['attention', 'to look at'],
	['unknown', 'unknown'],
	['skipped', 'skipped'],
];

export function compatibilityReport(observations: Observations, now: number): CompatibilityReport {
	const messages = recordsOf(observations.messages);
	const everything = [...recordsOf(observations.conversations), ...messages];
	const findings = {
		timestampUnit: timestampUnitFinding(everything, observations.unitSetting),
		messages: listFindings('messages', observations.messages),
		conversations: listFindings('conversations', observations.conversations),
		ids: idsFinding(everything),
		reactions: reactionsFinding(messages),
		attachmentUrls: attachmentUrlsFinding(messages, observations.baseUrl),
		rateLimitHeaders: rateLimitFinding(observations.answers, now),
		errorBody: errorBodyFinding(observations.missing),
		writeProbe: writeProbeFinding(observations.write),
	};
	const flat: Array<[string, Finding]> = Object.entries(findings).flatMap(([key, value]) =>
		'result' in value
			? [[key, value as Finding]]
			: Object.entries(value).map(([inner, finding]): [string, Finding] => [
					`${key}.${inner}`,
					finding as Finding,
				]),
	);
	const attention = flat.filter(([, f]) => f.status === 'attention').map(([path]) => path);
	const counts = STATUS_WORDS.map(([status, words]) => {
		const count = flat.filter(([, f]) => f.status === status).length;
		return count === 0 ? '' : `${count} ${words}`;
	}).filter(Boolean);
	const toLook = attention.length > 0 ? `. To look at: ${attention.join(', ')}` : '';
	const summary = `${flat.length} findings: ${counts.join(', ')}${toLook}`;
	return {
		checkedAt: new Date(now).toISOString(),
		baseUrl: observations.baseUrl,
		summary,
		attention,
		...findings,
		requests: observations.requests,
	};
}
