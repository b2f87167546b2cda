/**
 * Get Many's "more exist than the limit" hint, added once the run's output is known: n8n's editor shows
 * its own ("Limit of N items reached …") when the output has exactly Limit items, and one hint is enough.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isTool } from '../descriptions/tool';

/** An item whose Get Many stopped at its Limit while the service said more exist. */
export interface MoreThanLimit {
	message: string;
}

/** Adds the notes n8n's own limit hint does not already cover. */
export function addLimitHints(
	context: IExecuteFunctions,
	notes: MoreThanLimit[],
	output: INodeExecutionData[],
): void {
	if (notes.length === 0 || n8nShowsLimitHint(context, output)) return;
	for (const { message } of notes)
		context.addExecutionHints({ message, type: 'info', location: 'outputPane' });
}

/**
 * n8n 2.40's editor rule: the node's Limit parameter is a number (not an expression) and the main output
 * has that many items. A tool's output is not the main output, so n8n never shows it there.
 */
function n8nShowsLimitHint(context: IExecuteFunctions, output: INodeExecutionData[]): boolean {
	if (isTool(context)) return false;
	const limit = context.getNode().parameters.limit;
	if (typeof limit !== 'number' || limit <= 0) return false;
	// With "Continue (using error output)" n8n moves error items off the main output.
	const main =
		context.getNode().onError === 'continueErrorOutput'
			? output.filter((item) => item.json.error === undefined)
			: output;
	return main.length === limit;
}
