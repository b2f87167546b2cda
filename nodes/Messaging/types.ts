import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Pacer, RequestOptions } from '../shared/transport';
import type { ExpectedAnswer } from '../shared/transport/types';
import type { SimplifyAs } from '../shared/simplify/actionOutput';
import type { TimestampUnit } from '../shared/timestamps';
import type { ItemsWithBinary } from '../shared/attachments/itemsWithBinary';
import type { MoreThanLimit } from './helpers/limitHint';

/** What the router hands every operation besides the item index: state shared by the whole run. */
export interface RunContext {
	pacer: Pacer;
	/** The transport options of one item's requests: the run's pace and timeout, and what the answer must be. */
	requestOptions(itemIndex: number, expect?: ExpectedAnswer): RequestOptions;
	/** The service's timestamp unit, from the credential or read once off the service. */
	timestampUnit(itemIndex: number): Promise<TimestampUnit>;
	/** Conversations the run has read, by id: Simplify tells "me" from the other person of a one-to-one one. */
	conversations: Map<string, IDataObject>;
	/** Get Many's items that stopped at Limit with more on the service: hinted after the run. */
	moreThanLimit: MoreThanLimit[];
}

export type OperationResult = IDataObject | IDataObject[] | ItemsWithBinary;

export interface MessagingOperation {
	description: INodeProperties[];
	/** What an AI agent is told the operation does, takes and returns: the tool's Description. */
	toolDescription: string;
	/** Set on operations with the Simplify toggle. */
	simplifyAs?: SimplifyAs;
	/** Items processed at once when the user has not set Parallel Requests (default: DEFAULT_PARALLEL_REQUESTS). */
	parallelRequests?: number;
	execute(this: IExecuteFunctions, itemIndex: number, run: RunContext): Promise<OperationResult>;
}
