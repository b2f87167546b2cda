import { conversationStateOperation } from './setConversationFields';

/** Clears archived_at (sent as an empty value). */
export const { description, execute } = conversationStateOperation('unarchive', async () => ({
	archived_at: null,
}));
