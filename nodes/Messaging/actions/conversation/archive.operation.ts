import { nowInServiceUnit, conversationStateOperation } from './setConversationFields';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Archive a conversation (restorable with unarchive). ${CONVERSATION}. Returns the conversation.`;

/** Sets archived_at to now (in the service's timestamp unit); the conversation stays restorable. */
export const { description, execute } = conversationStateOperation(
	'archive',
	async function (itemIndex, run) {
		return { archived_at: await nowInServiceUnit.call(this, itemIndex, run) };
	},
);
