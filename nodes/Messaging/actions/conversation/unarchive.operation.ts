import { stateOperation } from './setConversationFields';

/** Clears archived_at (sent as an empty value). */
export const { description, execute } = stateOperation('unarchive', async () => ({ archived_at: null }));
