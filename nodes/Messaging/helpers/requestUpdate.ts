/**
 * Update Request Message (Send and Wait for Response and for Reply): when the wait ends, the request
 * message is edited to its text plus one outcome line, so the chat shows who decided and that the
 * question is closed. The edit never changes the wait's own result: how it went is `requestUpdate`.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { messagingApiRequest, type RequestOptions } from '../../shared/transport';

/** Single braces: n8n's editor turns a typed {{ into an expression, which would then fail on {{outcome}}. */
export const DEFAULT_OUTCOME_LINE = '{outcome}[ by {by}] · {time}';

/** The two options; `timeoutNote` says whether a time-out is written too. */
export const updateRequestOptions = (timeoutNote: string): INodeProperties[] => [
	{
		displayName: 'Update Request Message',
		name: 'updateRequestMessage',
		type: 'boolean',
		default: false,
		description: `Whether to edit the request message when the wait ends: its text (without the links or instruction line) plus the Outcome Line. ${timeoutNote} A failed edit does not change the result: the output’s requestUpdate says how it went.`,
	},
	{
		displayName: 'Outcome Line',
		name: 'outcomeLine',
		type: 'string',
		default: DEFAULT_OUTCOME_LINE,
		description:
			'With Update Request Message: the line added below the request. {outcome} is Approved, Declined, Answered or No answer (timed out); {by} who decided or answered (empty when not known); {time} when, as HH:MM and the workflow’s time zone. A part in [ ] is left out when a placeholder in it is empty. Single braces: an n8n expression may surround them.',
	},
];

export interface Outcome {
	outcome: 'Approved' | 'Declined' | 'Answered' | 'No answer (timed out)';
	/** Who decided or answered, as the service names them; empty when not known. */
	by: string[];
	at: Date;
}

/** HH:MM and the zone's short name ("14:02 UTC", "09:02 EST", "15:02 GMT+1"). */
export function clockTime(at: Date, timeZone: string): string {
	const format = (zone: string) =>
		new Intl.DateTimeFormat('en-US', {
			hour: '2-digit',
			minute: '2-digit',
			hourCycle: 'h23',
			timeZone: zone,
			timeZoneName: 'short',
		}).format(at);
	try {
		return format(timeZone || 'UTC');
	} catch {
		// An unknown zone name in the workflow's settings: UTC rather than no line at all.
		return format('UTC');
	}
}

const PLACEHOLDER = /\{\s*(outcome|by|time)\s*\}/g;

/** Pure: the outcome line from its template; a [ … ] part whose placeholder is empty is left out. */
export function outcomeLine(template: string, outcome: Outcome, timeZone: string): string {
	const values: Record<string, string> = {
		outcome: outcome.outcome,
		by: outcome.by.join(', '),
		time: clockTime(outcome.at, timeZone),
	};
	const fill = (text: string) => text.replace(PLACEHOLDER, (_m, name: string) => values[name]);
	const line = template.replace(/\[([^[\]]*\{[^[\]]*)\]/g, (_m, part: string) => {
		const names = [...part.matchAll(PLACEHOLDER)].map((m) => m[1]);
		return names.some((name) => values[name] === '') ? '' : fill(part);
	});
	return fill(line).replace(/\s+/g, ' ').trim();
}

/** The edited text: the request, a blank line, the outcome line. */
export function updatedRequestText(request: string, line: string): string {
	return line === '' ? request.trimEnd() : `${request.trimEnd()}\n\n${line}`;
}

/**
 * Edits the request message (PUT /messages/<id>) and says how it went; never throws, so the wait's
 * result stands whatever the service answers.
 */
export async function updateRequestMessage(
	context: IExecuteFunctions,
	messageId: string | null | undefined,
	text: string,
	options: RequestOptions,
): Promise<IDataObject> {
	if (messageId === null || messageId === undefined || messageId === '')
		return { updated: false, error: 'The request message was not found' };
	try {
		await messagingApiRequest.call(
			context,
			{ method: 'PUT', path: ['messages', messageId], body: { message: text } },
			options,
		);
		return { updated: true };
	} catch (error) {
		const { message, httpCode } = error as { message?: unknown; httpCode?: unknown };
		return {
			updated: false,
			error: typeof message === 'string' ? message : String(error),
			...(typeof httpCode === 'string' ? { httpCode } : {}),
		};
	}
}
