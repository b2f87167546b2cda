import type { IDataObject } from 'n8n-workflow';

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
