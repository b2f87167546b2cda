import { resourceLocator } from '../../shared/descriptions';

export { conversationLocator } from '../../shared/descriptions';

export const messageLocator = resourceLocator({
	name: 'messageId',
	displayName: 'Message',
	searchListMethod: 'searchMessages',
	placeholder: 'msg_123',
	description: 'The message, picked from the list or given by its ID',
});
