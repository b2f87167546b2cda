import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Throttle } from '../shared/transport';
import type { TimestampUnit } from '../shared/timestamps';

/** What the router hands every operation besides the item index: state shared by the whole run. */
export interface RunContext {
	throttle: Throttle;
	/** The service's timestamp unit, from the credential or read once off the service. */
	timestampUnit(itemIndex: number): Promise<TimestampUnit>;
}

export type OperationResult = IDataObject | IDataObject[];

export interface MessagingOperation {
	description: INodeProperties[];
	/** Items processed at once when the user has not set Parallel Requests (default: DEFAULT_PARALLEL_REQUESTS). */
	parallelRequests?: number;
	execute(this: IExecuteFunctions, itemIndex: number, run: RunContext): Promise<OperationResult>;
}
