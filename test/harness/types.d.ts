// The harness's results as the tests read them (JSDoc in the harness refers to these).
import type {
	ExecutionError,
	ExecutionStatus,
	IBinaryKeyData,
	IPairedItemData,
	NodeExecutionHint,
} from 'n8n-workflow';

/** An output item: its JSON is the node's output data, read freely by the assertions. */
export interface OutputItem {
	json: Record<string, any>;
	binary?: IBinaryKeyData;
	/** The node pairs each output item with one input item. */
	pairedItem?: IPairedItemData;
}

/** An error as n8n reports it; its subclasses carry different fields (httpCode, description, context…). */
export type RunError = ExecutionError & Record<string, any>;

/** What one run of Feed -> Messaging handed on. */
export interface MessagingRun {
	items: OutputItem[];
	outputs: OutputItem[][];
	error?: RunError;
	hints: NodeExecutionHint[];
}

/** A run that may have been parked (waitTill) or cancelled (status). */
export interface ParkedRun {
	items: OutputItem[];
	outputs?: OutputItem[][];
	error?: RunError;
	hints?: NodeExecutionHint[];
	waitTill?: Date;
	status: ExecutionStatus;
}
