/**
 * What the trigger reports to n8n as failed executions (which also run the workflow's error workflow):
 * checks failing for a while, and messages whose every attempt was lost.
 */
import type { ITriggerFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { keyText } from '../decisions';
import type { Delivery } from './deliveryLedger';
import { saveFailedExecution } from './n8nBridge';

export function reportFailingChecks(
	context: ITriggerFunctions,
	error: Error,
	failingForMs: number,
): void {
	const minutes = Math.round(failingForMs / 60_000);
	const report =
		error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(context.getNode(), error);
	report.message = `${report.message} (checks have been failing for ${minutes} min; the trigger keeps trying)`;
	saveFailedExecution(context, report);
}

export function reportUndelivered(context: ITriggerFunctions, delivery: Delivery): void {
	const keys = delivery.keys.map(keyText);
	const ids = keys.join(', ');
	const error = new NodeOperationError(
		context.getNode(),
		`${keys.length} message(s) were not delivered: the executions of all ${delivery.attempt} attempts were lost`,
		{
			description: `Message ids: ${ids}. Each attempt's execution crashed, was cancelled by a shutdown or never started; the trigger does not try again. Check n8n's crashed executions, then handle these messages by hand.`,
		},
	);
	context.logger.error(error.message, { messageIds: keys });
	saveFailedExecution(context, error);
}
