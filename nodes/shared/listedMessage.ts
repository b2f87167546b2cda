/**
 * A message as a list endpoint gives it: the one type the package reads a listed message as (the trigger's
 * listing, the waits' checks, the request lookup). Pure.
 */
import { idText } from './ids';

export interface ListedMessage {
	/** As text: a service's numeric id `42` is `'42'`, as the trigger emits it. */
	id: string;
	conversation_id?: unknown;
	contact?: unknown;
	message?: unknown;
	created_at?: unknown;
	[field: string]: unknown;
}

/** A listed message whose created_at was read as a number, in the service's unit. */
export type DatedMessage = ListedMessage & { created_at: number };

/** A listed or sent record as a ListedMessage; undefined for a record without an id. */
export function listedMessage(record: unknown): ListedMessage | undefined {
	if (!record || typeof record !== 'object') return undefined;
	const id = idText((record as { id?: unknown }).id);
	return id === undefined ? undefined : { ...(record as object), id };
}

/** The messages of a listed page (records without an id are left out). */
export function listedMessages(records: unknown): ListedMessage[] {
	return Array.isArray(records)
		? records.map(listedMessage).filter((m): m is ListedMessage => m !== undefined)
		: [];
}

/** Whether a message's created_at is a number (the order of a list is read only from those). */
export function isDated(message: ListedMessage): message is DatedMessage {
	return typeof message.created_at === 'number';
}
