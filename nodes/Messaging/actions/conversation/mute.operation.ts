import { conversationStateOperation } from './setConversationFields';

export const { description, execute } = conversationStateOperation('mute', async () => ({
	is_muted: true,
}));
