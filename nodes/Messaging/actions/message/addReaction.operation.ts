import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withReaction } from '../../helpers/reactions';
import type { OperationResult, RunContext } from '../../types';
import { changeReaction, reactionProperties } from './changeReaction';
import { MESSAGE } from '../../descriptions/tool';

export const toolDescription = `Add a reaction to a message, keeping the others. ${MESSAGE}; Reaction: a name like like or 👍; Reactor: who reacts (username or contact ID). Returns the message.`;

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
