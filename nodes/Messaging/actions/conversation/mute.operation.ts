import { stateOperation } from './changeState';

export const { description, execute } = stateOperation('mute', async () => ({ is_muted: true }));
