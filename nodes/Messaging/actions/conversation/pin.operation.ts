import { stateOperation } from './setConversationFields';

export const { description, execute } = stateOperation('pin', async () => ({ is_pinned: true }));
