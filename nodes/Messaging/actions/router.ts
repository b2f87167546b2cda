import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { forEachWithConcurrency } from '../../shared/concurrency';
import { detectTimestampUnit, withIsoTimestamps, type TimestampUnit } from '../../shared/timestamps';
import { getMessagingCredentials, messagingApiRequest, Throttle } from '../../shared/transport';
import { DEFAULT_PARALLEL_REQUESTS } from '../descriptions/common';
import * as conversation from './conversation';
import * as message from './message';
import type { MessagingOperation, RunContext } from './types';

const resources: Record<string, Record<string, MessagingOperation>> = {
	conversation: conversation.operations,
	message: message.operations,
};

/**
 * The node's one item loop: runs the chosen operation for every input item, up to
 * "Parallel Requests" at a time, and returns the results in input order, each paired with its item.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	if (resource === 'message' && operationName === SEND_AND_WAIT_OPERATION) {
		return await message.executeSendAndWait.call(this, newRunContext(this));
	}
	const operation = resources[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const parallel = Number(
		this.getNodeParameter('options.parallelRequests', 0, operation.parallelRequests ?? DEFAULT_PARALLEL_REQUESTS),
	);
	// Options are read once per run: every item shares the run's output shape and pace.
	const isoTimestamps = this.getNodeParameter('options.isoTimestamps', 0, false) as boolean;
	const timestampSetting = isoTimestamps
		? ((await getMessagingCredentials.call(this)).timestampUnit ?? 'auto')
		: 'auto';
	const run = newRunContext(this);
	const results: INodeExecutionData[][] = new Array(items.length);

	await forEachWithConcurrency(items.length, Number.isInteger(parallel) && parallel > 0 ? parallel : 1, async (i) => {
		try {
			const data = await operation.execute.call(this, i, run);
			const records = (Array.isArray(data) ? data : [data]).map((record) =>
				isoTimestamps ? withIsoTimestamps(record, timestampSetting) : record,
			);
			results[i] = this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(records), {
				itemData: { item: i },
			});
		} catch (error) {
			if (!this.continueOnFail()) throw asNodeError(this, error, i);
			results[i] = [{ json: { error: (error as Error).message, ...errorDetails(error) }, pairedItem: { item: i } }];
		}
	});
	return [results.flat()];
}

/** Errors keep their own class (NodeApiError carries the HTTP status); anything else gets the item index. */
function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

function errorDetails(error: unknown): IDataObject {
	const { description, httpCode } = error as { description?: unknown; httpCode?: unknown };
	return {
		...(typeof description === 'string' && description !== '' ? { description } : {}),
		...(typeof httpCode === 'string' ? { httpCode } : {}),
	};
}

function newRunContext(context: IExecuteFunctions): RunContext {
	let unit: Promise<TimestampUnit> | undefined;
	const run: RunContext = {
		throttle: new Throttle(),
		async timestampUnit(itemIndex: number): Promise<TimestampUnit> {
			unit ??= detectServiceUnit(context, itemIndex, run.throttle);
			return await unit;
		},
	};
	return run;
}

/** The credential's unit, or read off the first conversation or message the service lists. */
async function detectServiceUnit(context: IExecuteFunctions, itemIndex: number, throttle: Throttle): Promise<TimestampUnit> {
	const credentials = await getMessagingCredentials.call(context);
	if (credentials.timestampUnit === 'seconds' || credentials.timestampUnit === 'milliseconds') {
		return credentials.timestampUnit;
	}
	for (const collection of ['conversations', 'messages']) {
		const page = await messagingApiRequest.call(
			context,
			{ method: 'GET', path: [collection], query: { limit: 1 } },
			{ itemIndex, throttle },
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
