import { conversationStateOperation } from './setConversationFields';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Restore an archived conversation. ${CONVERSATION}. Returns the conversation.`;

/** Clears archived_at (sent as an empty value). */
export const { description, execute } = conversationStateOperation('unarchive', async () => ({
	archived_at: null,
}));
