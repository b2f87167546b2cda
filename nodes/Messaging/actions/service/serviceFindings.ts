/** Pure: what the service's answers show (rate-limit headers, error bodies, the write probe) and what the node does about it. */
import { parseRateLimitHeaders } from '../../../shared/headers/rateLimitHeaders';
import type { Answer, Failure, Finding, MissingProbe, WriteProbe } from './observations';
import { shown } from './recordFindings';

const RATE_LIMIT_HEADER = /^(x-)?rate-?limit|^retry-after/i;

/** The rate-limit headers of every answer, read by the same parser the pacing uses; `now` in epoch ms. */
export function rateLimitFinding(answers: Answer[], now: number): Finding {
	const names = new Set<string>();
	let shownOn: { request: string; headers: string } | undefined;
	let read: string | undefined;
	for (const answer of answers) {
		const found = Object.entries(answer.headers ?? {}).filter(([name]) =>
			RATE_LIMIT_HEADER.test(name),
		);
		if (found.length === 0) continue;
		for (const [name] of found) names.add(name.toLowerCase());
		const state = parseRateLimitHeaders(answer.headers, now);
		// The last answer the parser reads (else the first with any such header) is the one shown.
		if (read !== undefined && !state) continue;
		const headers = found.map(([name, value]) => `${name}: ${shown(String(value), 40)}`);
		shownOn = { request: answer.request, headers: headers.join('; ') };
		if (!state) continue;
		const window = state.windowMs === undefined ? '' : ` per ${state.windowMs / 1000} s`;
		const limit = state.limit === undefined ? '' : `a limit of ${state.limit}${window}, `;
		read = `${limit}${state.remaining} left, reset in ${Math.ceil(state.resetMs / 1000)} s`;
	}
	const result = [...names].join(', ');
	if (!shownOn) {
		return {
			result: 'none',
			status: 'fine',
			evidence: `No rate-limit header on the ${answers.length} answers`,
			nodeWill:
				'Slows down only when the service answers 429, waiting what Retry-After asks (else backing off), and paces the rest of the run from then on.',
		};
	}
	const on = `${shownOn.request} answered ${shownOn.headers}`;
	if (read === undefined) {
		return {
			result,
			status: 'adapted',
			evidence: `${on}: no remaining count with a reset`,
			nodeWill:
				'Cannot pace by these headers (they name no remaining count with its reset): slows down when the service answers 429, waiting what Retry-After asks.',
		};
	}
	return {
		result,
		status: 'fine',
		evidence: `${on}, read as ${read}`,
		nodeWill:
			'Paces the run’s requests to stay within the announced limit before any 429, and waits for the reset when none is left.',
	};
}

/** Where in a JSON body the service's reason sits (`error.message`), if it sits whole in one field. */
function reasonPath(value: unknown, reason: string, path = '', depth = 0): string | undefined {
	if (typeof value === 'string') return value.trim() === reason ? path : undefined;
	if (!value || typeof value !== 'object' || depth > 3) return undefined;
	for (const [key, inner] of Object.entries(value)) {
		const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
		const found = reasonPath(inner, reason, at, depth + 1);
		if (found !== undefined) return found;
	}
	return undefined;
}

/** A body's shape in a few words: `JSON, reason in error.message`, `an HTML page`, `an empty body`. */
export function bodyShape(body: unknown, reason?: string): string {
	let value = body;
	if (typeof body === 'string') {
		if (body.trim() === '') return 'an empty body';
		try {
			value = JSON.parse(body) as unknown;
		} catch {
			return /<(!doctype|html|body|h1|p)\b/i.test(body) ? 'an HTML page' : 'plain text';
		}
	}
	if (value === undefined || value === null) return 'an empty body';
	if (typeof value !== 'object') return `JSON ${typeof value}`;
	const keys = Array.isArray(value) ? 'an array' : `{${Object.keys(value).join(', ')}}`;
	const path = reason === undefined ? undefined : reasonPath(value, reason);
	return path === undefined ? `JSON ${keys}` : `JSON, reason in ${path}`;
}

/** The answer to a GET of a message that cannot exist, read as every error of the node is read. */
export function errorBodyFinding(missing: MissingProbe): Finding {
	const { request, failure } = missing;
	if (missing.record) {
		return {
			result: '2xx for a missing ID',
			status: 'attention',
			evidence: `${request} answered ${shown(missing.record, 120)}`,
			nodeWill:
				'Outputs what the service answers: the node cannot tell that such a record does not exist.',
		};
	}
	if (failure?.status === undefined) {
		return {
			result: 'unknown',
			status: 'unknown',
			evidence: `${request} failed: ${failure?.message ?? 'no answer'}`,
			nodeWill: 'Errors show the service’s reason when it gives one in a common shape.',
		};
	}
	const { status, serviceText, message } = failure;
	const shape = bodyShape(missing.body, serviceText);
	const gone =
		status === 404
			? ''
			: ' Only a 404 tells the trigger that the message it pages from is gone: this status stops that check with an error instead.';
	return {
		result: `${status}, ${shape}${serviceText ? '' : ', no reason read'}`,
		status: status === 404 && serviceText ? 'fine' : 'adapted',
		evidence: `${request} → ${status} ${shown(missing.body ?? '', 120)}`,
		nodeWill: `${serviceText ? 'Errors show the service’s reason' : 'Errors show the status and the start of the body'}, here: "${message}".${gone}`,
	};
}

const failed = (failure?: Failure) => failure?.message ?? 'no answer';

/** Create and delete one conversation, then read it: whether both work, and what Delete answers. */
export function writeProbeFinding(write?: WriteProbe): Finding {
	if (!write) {
		return {
			result: 'off',
			status: 'skipped',
			evidence: 'Write Probe is off: only GET requests were sent',
			nodeWill:
				'Turn on Write Probe to check that Create and Delete work (it creates one conversation and deletes it).',
		};
	}
	const create = `POST /v1/conversations with contact_id=${write.contactId}`;
	if (!write.created) {
		return {
			result: 'create refused',
			status: 'attention',
			evidence: `${create} failed: ${failed(write.createFailure)}`,
			nodeWill:
				'Conversation → Create fails with this error; nothing was created, nothing deleted.',
		};
	}
	const id = String(write.created.id);
	const created = `${create} created ${id}`;
	if (!write.deleted) {
		return {
			result: 'delete refused',
			status: 'attention',
			evidence: `${created}; its DELETE failed: ${failed(write.deleteFailure)}`,
			nodeWill: `Conversation → Delete fails with this error. The probe’s conversation ${id} is still there: delete or archive it yourself.`,
		};
	}
	const deleted = `${created}; DELETE answered ${write.deleted.status} with ${bodyShape(write.deleted.body)}`;
	const after = write.afterDelete;
	if (after === 'still there') {
		return {
			result: 'delete does not delete',
			status: 'attention',
			evidence: `${deleted}; GET /v1/conversations/${id} still answers it`,
			nodeWill: `Conversation → Delete outputs { id, deleted: true } for any 2xx, but this service kept ${id}: delete it yourself.`,
		};
	}
	const will =
		'Create outputs the conversation the service returns; Delete outputs { id, deleted: true } whatever the service’s body.';
	if (after !== 'gone') {
		return {
			result: 'create and delete answer 2xx',
			status: 'unknown',
			evidence: `${deleted}; reading it afterwards failed: ${failed(after)}`,
			nodeWill: will,
		};
	}
	return {
		result: 'create and delete work',
		status: 'fine',
		evidence: `${deleted}; GET /v1/conversations/${id} then answered 404`,
		nodeWill: will,
	};
}
