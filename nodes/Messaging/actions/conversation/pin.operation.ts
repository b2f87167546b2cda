import { conversationStateOperation } from './setConversationFields';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Pin a conversation. ${CONVERSATION}. Returns the conversation.`;

export const { description, execute } = conversationStateOperation('pin', async () => ({
	is_pinned: true,
}));
