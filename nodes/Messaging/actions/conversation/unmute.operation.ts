import { stateOperation } from './changeState';

export const { description, execute } = stateOperation('unmute', async () => ({ is_muted: false }));
