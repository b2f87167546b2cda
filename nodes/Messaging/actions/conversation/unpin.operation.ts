import { stateOperation } from './changeState';

export const { description, execute } = stateOperation('unpin', async () => ({ is_pinned: false }));
