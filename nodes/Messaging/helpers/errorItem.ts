import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * A failed item under Continue On Fail: `error` and `details` only, as n8n's HTTP Request node does.
 * n8n sends an item to the error output ("Continue (using error output)") only when its keys are all
 * among error, message and details; any other key kept it on the success branch.
 */
export function errorItem(error: unknown): IDataObject {
	const { message, description, httpCode } = error as {
		message?: unknown;
		description?: unknown;
		httpCode?: unknown;
	};
	const details: IDataObject = {
		...(typeof description === 'string' && description !== '' ? { description } : {}),
		...(typeof httpCode === 'string' ? { httpCode } : {}),
	};
	return {
		error: typeof message === 'string' ? message : String(error),
		...(Object.keys(details).length > 0 ? { details } : {}),
	};
}

/** Errors keep their own class (NodeApiError carries the HTTP status); anything else gets the item index. */
export function nodeErrorOf(
	node: INode,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}
