import { stateOperation } from './setConversationFields';

export const { description, execute } = stateOperation('unmute', async () => ({ is_muted: false }));
