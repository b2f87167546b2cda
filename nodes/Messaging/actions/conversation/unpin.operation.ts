import { conversationStateOperation } from './setConversationFields';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Unpin a conversation. ${CONVERSATION}. Returns the conversation.`;

export const { description, execute } = conversationStateOperation('unpin', async () => ({
	is_pinned: false,
}));
