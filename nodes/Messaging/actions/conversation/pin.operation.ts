import { conversationStateOperation } from './setConversationFields';

export const { description, execute } = conversationStateOperation('pin', async () => ({
	is_pinned: true,
}));
