import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { forEachWithConcurrency, Lanes } from '../helpers/concurrency';
import { errorItem, nodeErrorOf } from '../helpers/errorItem';
import { addLimitHints } from '../helpers/limitHint';
import { ownFromSetting, simplifyRecords, wantsSimplify } from '../../shared/simplify/actionOutput';
import { isTool, withNextStep } from '../descriptions/tool';
import { ItemsWithBinary } from '../../shared/attachments/itemsWithBinary';
import {
	detectTimestampUnit,
	withIsoTimestamps,
	type TimestampUnit,
} from '../../shared/timestamps';
import {
	getMessagingCredentials,
	messagingApiRequest,
	Pacer,
	type RequestOptions,
} from '../../shared/transport';
import {
	DEFAULT_PARALLEL_REQUESTS,
	DEFAULT_TIMEOUT_SECONDS,
	MAX_PARALLEL_REQUESTS,
} from '../descriptions/common';
import * as conversation from './conversation';
import * as message from './message';
import * as service from './service';
import type { MessagingOperation, RunContext } from '../types';

const resources: Record<string, Record<string, MessagingOperation>> = {
	conversation: conversation.operations,
	message: message.operations,
	service: service.operations,
};

/**
 * The node's one item loop: runs the chosen operation for every input item, up to
 * "Parallel Requests" at a time, and returns the results in input order, each paired with its item.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = resources[resource]?.[operationName];
	if (!operation && !(resource === 'message' && operationName === SEND_AND_WAIT_OPERATION)) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of "${resource}" is not supported`,
		);
	}
	// Options are read once per run: every item shares the run's output shape, pace and timeout.
	const options = readRunOptions(this, operation?.parallelRequests ?? DEFAULT_PARALLEL_REQUESTS);
	if (!operation) {
		// One message for the whole run, then the execution waits: no item loop (as n8n's own nodes do).
		return await message.executeSendAndWait.call(this, newRunContext(this, options.timeoutMs));
	}
	const simplifyAs = operation.simplifyAs;
	const credentials =
		options.isoTimestamps || simplifyAs ? await getMessagingCredentials.call(this) : undefined;
	const timestampSetting = credentials?.timestampUnit ?? 'auto';
	const own = ownFromSetting(credentials?.ownContactId);
	const lanes = new Lanes(options.parallelRequests);
	const run = newRunContext(this, options.timeoutMs, lanes);
	const results: INodeExecutionData[][] = new Array(items.length);

	await forEachWithConcurrency(items.length, lanes, async (i) => {
		try {
			const data = await operation.execute.call(this, i, run);
			const entries =
				data instanceof ItemsWithBinary
					? data.items
					: (Array.isArray(data) ? data : [data]).map((json) => ({ json }));
			const raw = entries.map((entry) => entry.json);
			const records =
				simplifyAs && wantsSimplify(this, i)
					? simplifyRecords(raw, simplifyAs, run, timestampSetting, own, isTool(this))
					: raw.map((record) =>
							options.isoTimestamps ? withIsoTimestamps(record, timestampSetting) : record,
						);
			const out = entries.map((entry, n) => ({ ...entry, json: records[n] }));
			results[i] = this.helpers.constructExecutionMetaData(out, { itemData: { item: i } });
		} catch (error) {
			if (!this.continueOnFail()) throw asToolError(this, nodeErrorOf(this.getNode(), error, i));
			results[i] = [{ json: errorItem(error), pairedItem: { item: i } }];
		}
	});
	const output = results.flat();
	addLimitHints(this, run.moreThanLimit, output);
	return [output];
}

/** As an AI agent's tool, the error's message (all the model receives) also says what to do next. */
function asToolError<E extends NodeApiError | NodeOperationError>(
	context: IExecuteFunctions,
	error: E,
): E {
	if (isTool(context))
		error.message = withNextStep(error.message, (error as { httpCode?: unknown }).httpCode);
	return error;
}

interface RunOptions {
	isoTimestamps: boolean;
	parallelRequests: number;
	timeoutMs: number;
}

/** The run's options, from the first item, within their documented bounds. */
function readRunOptions(context: IExecuteFunctions, defaultParallel: number): RunOptions {
	const number = (name: string, fallback: number, min: number, max: number) => {
		const value = Number(context.getNodeParameter(`options.${name}`, 0, fallback));
		return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
	};
	return {
		isoTimestamps: context.getNodeParameter('options.isoTimestamps', 0, false) === true,
		parallelRequests: Math.floor(
			number('parallelRequests', defaultParallel, 1, MAX_PARALLEL_REQUESTS),
		),
		timeoutMs: number('timeout', DEFAULT_TIMEOUT_SECONDS, 1, 600) * 1000,
	};
}

function newRunContext(context: IExecuteFunctions, timeoutMs: number, lane?: Lanes): RunContext {
	let unit: Promise<TimestampUnit> | undefined;
	const pacer = new Pacer();
	const run: RunContext = {
		pacer,
		conversations: new Map(),
		moreThanLimit: [],
		requestOptions: (itemIndex, expect) => ({ itemIndex, pacer, lane, timeoutMs, expect }),
		async timestampUnit(itemIndex: number): Promise<TimestampUnit> {
			unit ??= detectServiceUnit(context, run.requestOptions(itemIndex, 'list'));
			return await unit;
		},
	};
	return run;
}

/** The credential's unit, or read off the first conversation or message the service lists. */
async function detectServiceUnit(
	context: IExecuteFunctions,
	requestOptions: RequestOptions,
): Promise<TimestampUnit> {
	const { itemIndex } = requestOptions;
	const credentials = await getMessagingCredentials.call(context);
	if (credentials.timestampUnit === 'seconds' || credentials.timestampUnit === 'milliseconds') {
		return credentials.timestampUnit;
	}
	for (const collection of ['conversations', 'messages']) {
		const page = await messagingApiRequest.call(
			context,
			{ method: 'GET', path: [collection], query: { limit: 1 } },
			requestOptions,
		);
		const unit = detectTimestampUnit((page.data as IDataObject[] | undefined)?.[0]);
		if (unit) return unit;
	}
	throw new NodeOperationError(
		context.getNode(),
		'Could not tell whether the service counts time in seconds or milliseconds (it has no records yet)',
		{ itemIndex, description: 'Set "Timestamp Unit" on the Messaging API credential.' },
	);
}
