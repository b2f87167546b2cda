import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withReaction } from '../../helpers/reactions';
import type { OperationResult, RunContext } from '../../types';
import { changeReaction, reactionProperties } from './changeReaction';

export { parallelRequests } from './changeReaction';

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['addReaction'] } },
	reactionProperties('add'),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	return await changeReaction.call(this, itemIndex, run, withReaction);
}
