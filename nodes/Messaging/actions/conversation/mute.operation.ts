import { conversationStateOperation } from './setConversationFields';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Mute a conversation. ${CONVERSATION}. Returns the conversation.`;

export const { description, execute } = conversationStateOperation('mute', async () => ({
	is_muted: true,
}));
