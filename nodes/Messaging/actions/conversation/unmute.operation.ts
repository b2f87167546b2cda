import { conversationStateOperation } from './setConversationFields';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Unmute a conversation. ${CONVERSATION}. Returns the conversation.`;

export const { description, execute } = conversationStateOperation('unmute', async () => ({
	is_muted: false,
}));
