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
	return { displayName: 'Attachments (JSON)', name: 'attachments', type: 'json', default: '[]', description };
}

export const DEFAULT_PARALLEL_REQUESTS = 8;

function parallelRequestsOption(defaultValue: number, note: string): INodeProperties {
	return {
		displayName: 'Parallel Requests',
		name: 'parallelRequests',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 64 },
		default: defaultValue,
		description: `How many input items are processed at once. Output order and item pairing are kept whatever the value. ${note}`,
	};
}

/** The Options collection of an operation; `returnsRecords` adds the ISO timestamp switch. */
export function optionsCollection(
	returnsRecords: boolean,
	parallel: { default: number; note?: string } = { default: DEFAULT_PARALLEL_REQUESTS },
	extra: INodeProperties[] = [],
): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			...(returnsRecords ? [isoTimestampsOption] : []),
			...extra,
			parallelRequestsOption(
				parallel.default,
				parallel.note ?? 'A rate limit (429) pauses all of them together.',
			),
		],
	};
}
