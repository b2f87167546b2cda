import { conversationStateOperation } from './setConversationFields';

export const { description, execute } = conversationStateOperation('unpin', async () => ({
	is_pinned: false,
}));
