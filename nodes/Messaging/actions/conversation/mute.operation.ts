import { stateOperation } from './setConversationFields';

export const { description, execute } = stateOperation('mute', async () => ({ is_muted: true }));
