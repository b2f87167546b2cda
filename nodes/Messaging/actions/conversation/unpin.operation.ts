import { stateOperation } from './setConversationFields';

export const { description, execute } = stateOperation('unpin', async () => ({ is_pinned: false }));
