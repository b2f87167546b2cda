/**
 * The Messaging Trigger. Version 1 is n8n's polling mode (every minute or more), kept for the
 * workflows built on it; version 2, the default for new nodes, checks on its own schedule from every
 * 5 seconds and settles each delivery only when its execution has finished.
 */
import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { baseDescription } from './description';
import { MessagingTriggerV1 } from './v1/MessagingTriggerV1.node';
import { MessagingTriggerV2 } from './v2/MessagingTriggerV2.node';

export class MessagingTrigger extends VersionedNodeType {
	constructor() {
		const description: INodeTypeBaseDescription = { ...baseDescription };
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new MessagingTriggerV1(description),
			2: new MessagingTriggerV2(description),
		};
		super(nodeVersions, description);
	}
}
