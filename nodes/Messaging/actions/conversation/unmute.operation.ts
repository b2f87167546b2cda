import { conversationStateOperation } from './setConversationFields';

export const { description, execute } = conversationStateOperation('unmute', async () => ({
	is_muted: false,
}));
