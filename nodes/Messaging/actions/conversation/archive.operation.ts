import { serviceNow, stateOperation } from './setConversationFields';

/** Sets archived_at to now (in the service's timestamp unit); the conversation stays restorable. */
export const { description, execute } = stateOperation('archive', async function (itemIndex, run) {
	return { archived_at: await serviceNow.call(this, itemIndex, run) };
});
