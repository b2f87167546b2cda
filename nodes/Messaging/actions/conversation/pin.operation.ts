import { stateOperation } from './changeState';

export const { description, execute } = stateOperation('pin', async () => ({ is_pinned: true }));
