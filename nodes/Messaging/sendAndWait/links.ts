/**
 * Pure helpers of Send and Wait for Response: the request message's text, the Limit Wait Time, and the
 * checks the webhook makes on a click. n8n itself signs the resume links (getSignedResumeUrl: an HMAC of
 * the link's path and query with the instance's secret) and checks that signature before the node's
 * webhook() is called; these helpers never see the secret.
 */
import { WAIT_INDEFINITELY } from 'n8n-workflow';

export interface ResponseLink {
	label: string;
	url: string;
}

/** The text sent to the conversation: the message, then one line per link ("Approve: https://…"). */
export function requestMessageText(message: string, links: ResponseLink[]): string {
	const lines = links.map((link) => `${oneLine(link.label)}: ${link.url}`);
	return `${message.trimEnd()}\n\n${lines.join('\n')}`;
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, ' ').trim();
}

/** Limit Wait Time as n8n's send-and-wait nodes offer it (Options > Limit Wait Time > Values). */
export interface LimitWaitTime {
	limitType?: string;
	resumeAmount?: number | string;
	resumeUnit?: string;
	maxDateAndTime?: string | number | Date;
}

const UNIT_MS: Record<string, number> = {
	seconds: 1_000,
	minutes: 60_000,
	hours: 3_600_000,
	days: 86_400_000,
};

/**
 * When the execution goes on by itself if nobody answered: n8n's WAIT_INDEFINITELY without a limit.
 * Returns a problem sentence instead of a date when the limit cannot be used.
 */
export function waitTillFrom(
	limit: LimitWaitTime | undefined,
	now: number,
): Date | { problem: string } {
	if (!limit || Object.keys(limit).length === 0) return WAIT_INDEFINITELY;
	if ((limit.limitType ?? 'afterTimeInterval') === 'afterTimeInterval') {
		const amount = Number(limit.resumeAmount ?? 1);
		const unit = UNIT_MS[limit.resumeUnit ?? 'hours'];
		if (unit === undefined) return { problem: `has an unknown unit "${limit.resumeUnit}"` };
		if (!Number.isFinite(amount) || amount <= 0) {
			return {
				problem: `must be a positive amount of ${limit.resumeUnit ?? 'hours'} (got "${limit.resumeAmount}")`,
			};
		}
		return new Date(now + amount * unit);
	}
	if (limit.limitType === 'atSpecifiedTime') {
		const raw = limit.maxDateAndTime;
		const date = raw instanceof Date ? raw : new Date(raw === undefined || raw === '' ? NaN : raw);
		if (Number.isNaN(date.getTime()))
			return { problem: `has no valid Max Date and Time (got "${raw ?? ''}")` };
		return date;
	}
	return { problem: `has an unknown Limit Type "${limit.limitType}"` };
}

/** The query parameter n8n puts its signature in (n8n-core's WAITING_TOKEN_QUERY_PARAM). */
export const SIGNATURE_PARAM = 'signature';

/** Whether a request URL carries a signature at all (n8n has already checked it is the right one). */
export function hasSignature(requestUrl: string): boolean {
	const value = new URL(requestUrl, 'http://localhost').searchParams.get(SIGNATURE_PARAM);
	return typeof value === 'string' && /^[0-9a-f]{16,}$/i.test(value);
}

/**
 * What identifies the request message in the conversation: the resume link's `/<execution>/<node>?`,
 * which appears in that message's text and in no other (n8n puts the execution id and node id there).
 */
export function resumeMarker(requestUrl: string): string | undefined {
	const path = new URL(requestUrl, 'http://localhost').pathname.split('/').filter((s) => s !== '');
	if (path.length < 2) return undefined;
	return `/${path.slice(-2).join('/')}?`;
}
