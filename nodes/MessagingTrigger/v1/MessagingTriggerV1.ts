/**
 * Version 1: n8n's polling mode (`polling: true`, at least one minute apart). Each poll lists what is
 * new and advances the stored state as it returns the messages, the way it always has; version 2
 * counts a delivery as done only when its execution has finished.
 */
import type {
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { searchConversations } from '../../shared/pickers';
import { servicePages } from '../../shared/paginate';
import { getMessagingCredentials } from '../../shared/transport';
import { conversationParameter, optionsParameter } from '../description';
import { downloadTriggerAttachments } from '../../shared/attachments/triggerDownloads';
import { buildItems, messagesWithFiles, withFiles } from '../deliveryItems';
import { checkEvents } from '../events/check';
import { NEW_MESSAGES_ONLY } from '../events/settings';
import { fetchNewest } from '../newest';
import { listQuery, readOptions } from '../options';
import { messageItems, noMessagesText } from '../output';
import { isTriggerState } from '../triggerState';

/**
 * Polls in progress in this process, by workflow and node. n8n starts a poll on every tick of every Poll
 * Times entry without waiting for the one before (two entries falling on the same minute, or a poll
 * longer than its interval), and two polls reading the same state would deliver the same messages: a
 * poll that finds one in progress returns nothing, and the next tick lists what it would have.
 */
const pollsInProgress = new Set<string>();

export class MessagingTriggerV1 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 1,
			subtitle: '={{"New messages"}}',
			defaults: { name: 'Messaging Trigger' },
			polling: true,
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'messagingApi', required: true }],
			properties: [conversationParameter, optionsParameter],
		};
	}

	methods = { listSearch: { searchConversations } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const options = { ...readOptions(this), events: NEW_MESSAGES_ONLY };
		const credentials = await getMessagingCredentials.call(this);
		const unitSetting = credentials.timestampUnit ?? 'auto';
		const fetchPage = servicePages(this, 'messages', listQuery(options));
		const output = { ...options, unitSetting, own: credentials.ownContactId?.trim() || undefined };

		if (this.getMode() === 'manual') {
			const newest = await fetchNewest(fetchPage, options.pageSize);
			if (!newest) {
				const { message, description } = noMessagesText(options.conversationId);
				throw new NodeOperationError(this.getNode(), message, { description });
			}
			await downloadTriggerAttachments(this, [newest]);
			return [messageItems([newest], output)];
		}

		const pollKey = `${this.getWorkflow().id ?? ''}\u0000${this.getNode().id}`;
		if (pollsInProgress.has(pollKey)) return null;
		pollsInProgress.add(pollKey);
		try {
			const staticData = this.getWorkflowStaticData('node');
			const stored = isTriggerState(staticData.state) ? staticData.state : null;
			const { events } = options;
			const check = await checkEvents(this, stored, {
				options,
				unitSetting,
				configuredOwn: credentials.ownContactId,
				nowMs: Date.now(),
			});

			await downloadTriggerAttachments(this, messagesWithFiles(check.decisions, events));
			// Only now, with the whole poll done, is the state written: a failed poll leaves it untouched.
			staticData.state = check.nextState;
			if (check.decisions.length === 0) return null;
			const built = buildItems(check.decisions, { events, output: check.output }, check.gap);
			return [withFiles(built, events)];
		} finally {
			pollsInProgress.delete(pollKey);
		}
	}
}
