/** What Check Compatibility observes of a service, and the findings it turns that into. Types only. */
import type { IDataObject } from 'n8n-workflow';

import type { TimestampUnitSetting } from '../../../shared/timestamps';

/**
 * `fine`: as the spec shows it; `adapted`: different, and the node adapts; `attention`: something to act on
 * or a limit of what the node can do (nodeWill says which); `unknown`: not enough seen to tell; `skipped`.
 */
export type FindingStatus = 'fine' | 'adapted' | 'attention' | 'unknown' | 'skipped';

export interface Finding {
	/** A short phrase: `seconds`, `newest_first`, `capped at 20`. */
	result: string;
	status: FindingStatus;
	/** What was seen, with the request or record it was seen on. */
	evidence: string;
	/** What the node will do about it, in a sentence. */
	nodeWill: string;
}

export interface Answer {
	/** The request, as `GET /v1/messages?limit=100`. */
	request: string;
	status: number;
	headers: IDataObject;
	body: unknown;
}

/** A request that failed: the node's error message, and the service's status and reason when it answered. */
export interface Failure {
	message: string;
	status?: number;
	serviceText?: string;
}

export interface ListProbe {
	/** Page sizes asked for and refused, in order, with the service's reason. */
	refused: Array<{ limit: number; reason: string }>;
	/** The first page, at the `limit` it was accepted at. */
	page?: { limit: number; records: IDataObject[]; hasMore?: boolean; request: string };
	/** Why the first page could not be read (after any refusals). */
	failure?: Failure;
	/** The page asked for after the first record of the first page (`starting_after`). */
	cursor?: { after: string; request: string; records?: IDataObject[]; failure?: Failure };
}

export interface MissingProbe {
	id: string;
	request: string;
	/** Set when the service answered 2xx (a record for an id that cannot exist). */
	record?: IDataObject;
	failure?: Failure;
	/** The raw body of the answer, as it came. */
	body?: unknown;
}

export interface WriteProbe {
	contactId: string;
	created?: IDataObject;
	createFailure?: Failure;
	deleted?: { status: number; body: unknown };
	deleteFailure?: Failure;
	/** The conversation read after the delete: gone (404), still there, or the check failed. */
	afterDelete?: 'gone' | 'still there' | Failure;
}

export interface Observations {
	/** The credential's Timestamp Unit. */
	unitSetting: TimestampUnitSetting;
	baseUrl: string;
	messages: ListProbe;
	conversations: ListProbe;
	missing: MissingProbe;
	/** Every answer of the check, in order (retries included). */
	answers: Answer[];
	/** Every request sent, with the status it got (`GET /v1/messages?limit=100 → 200`). */
	requests: string[];
	/** Undefined when the write probe is off. */
	write?: WriteProbe;
}

export type ListName = 'messages' | 'conversations';

export interface ListFindings {
	order: Finding;
	cursor: Finding;
	pageSize: Finding;
}

export interface CompatibilityReport {
	checkedAt: string;
	baseUrl: string;
	/** `2 fine, 1 adapted, …`, then the findings to look at. */
	summary: string;
	/** The findings whose status is `attention`, by path (`messages.cursor`). */
	attention: string[];
	timestampUnit: Finding;
	messages: ListFindings;
	conversations: ListFindings;
	ids: Finding;
	reactions: Finding;
	attachmentUrls: Finding;
	rateLimitHeaders: Finding;
	errorBody: Finding;
	writeProbe: Finding;
	/** Every request sent, with the status it got (`GET /v1/messages?limit=100 → 200`). */
	requests: string[];
}
