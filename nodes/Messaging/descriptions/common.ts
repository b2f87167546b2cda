import type { INodeProperties } from 'n8n-workflow';

import { isoTimestampsOption } from '../../shared/descriptions';

export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** Attachments as a JSON array of objects (Send adds them, Update replaces them). */
export function attachmentsField(description: string): INodeProperties {
	return {
		displayName: 'Attachments (JSON)',
		name: 'attachments',
		type: 'json',
		default: '[]',
		description,
	};
}

export const DEFAULT_PARALLEL_REQUESTS = 8;
export const MAX_PARALLEL_REQUESTS = 64;
export const DEFAULT_TIMEOUT_SECONDS = 30;

const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 600 },
	default: DEFAULT_TIMEOUT_SECONDS,
	description:
		'How long one request may wait for the complete answer. A read that times out is retried; a send that times out is reported, never repeated. With Download Attachments, also how long each file may take in all, redirects, retries and every byte included.',
};

function parallelRequestsOption(defaultValue: number, note: string): INodeProperties {
	return {
		displayName: 'Parallel Requests',
		name: 'parallelRequests',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_PARALLEL_REQUESTS },
		default: defaultValue,
		description: `How many input items are processed at once. Output order and item pairing are kept whatever the value. ${note}`,
	};
}

/**
 * The Options collection of an operation: `isoTimestamps` for operations that return records,
 * `parallel` for a default of Parallel Requests other than DEFAULT_PARALLEL_REQUESTS.
 */
export function optionsCollection(settings: {
	isoTimestamps: boolean;
	parallel?: { default: number; note?: string };
	extra?: INodeProperties[];
}): INodeProperties {
	const { isoTimestamps, parallel = { default: DEFAULT_PARALLEL_REQUESTS }, extra = [] } = settings;
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			...(isoTimestamps ? [isoTimestampsOption] : []),
			...extra,
			timeoutOption,
			parallelRequestsOption(
				parallel.default,
				parallel.note ?? 'They share one pace: a rate limit (429) slows all of them together.',
			),
		],
	};
}
