/**
 * The Messaging Trigger. Version 1 is n8n's polling mode (every minute or more), kept for the
 * workflows built on it; version 2, the default for new nodes, checks on its own schedule from every
 * 5 seconds and counts each delivery as done only when its execution has finished.
 */
import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { MessagingTriggerV1 } from './v1/MessagingTriggerV1';
import { MessagingTriggerV2 } from './v2/MessagingTriggerV2';

export class MessagingTrigger extends VersionedNodeType {
	constructor() {
		const description: INodeTypeBaseDescription = {
			displayName: 'Messaging Trigger',
			name: 'messagingTrigger',
			icon: { light: 'file:messaging.svg', dark: 'file:messaging.dark.svg' },
			group: ['trigger'],
			description: 'Starts the workflow when new messages arrive, each message once, oldest first',
			defaultVersion: 2,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new MessagingTriggerV1(description),
			2: new MessagingTriggerV2(description),
		};
		super(nodeVersions, description);
	}
}
