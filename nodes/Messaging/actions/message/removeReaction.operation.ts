import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withoutReaction } from '../../helpers/reactions';
import type { OperationResult, RunContext } from '../../types';
import { changeReaction, reactionProperties } from './changeReaction';
import { MESSAGE } from '../../descriptions/tool';

export const toolDescription = `Remove one person’s reaction from a message. ${MESSAGE}; Reaction: its name; Reactor: whose. Returns the message.`;

export { parallelRequests } from './changeReaction';

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['removeReaction'] } },
	reactionProperties('remove'),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	return await changeReaction.call(this, itemIndex, run, withoutReaction);
}
