/** Bad input named for the user: the field and, when the run has several, the item. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** A bad-input error that names the field and the item. */
export function inputError(
	context: IExecuteFunctions,
	itemIndex: number,
	field: string,
	problem: string,
): NodeOperationError {
	const several = severalItems(context);
	return new NodeOperationError(
		context.getNode(),
		`${field} ${problem}${several ? ` [item ${itemIndex}]` : ''}`,
		{
			itemIndex,
			description: `Check the "${field}" parameter${several ? ` of item ${itemIndex}` : ''}.`,
		},
	);
}

/** Whether the run has several input items to tell apart (a tool call, like most runs, has one). */
export function severalItems(context: IExecuteFunctions): boolean {
	return context.getInputData().length > 1;
}

/** ` [item N]` after an error's sentence, only when the run has several items to tell apart. */
export function itemSuffix(context: IExecuteFunctions, itemIndex: number): string {
	return severalItems(context) ? ` [item ${itemIndex}]` : '';
}
