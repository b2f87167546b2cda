/**
 * Version 2: a `trigger()` node that checks on its own schedule, from every 5 seconds up, and counts
 * each delivery as done only when n8n says its execution has finished (see checkLoop.ts).
 */
import type {
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { searchConversations } from '../../shared/pickers';
import { servicePages } from '../../shared/paginate';
import { getMessagingCredentials, type RequestContext } from '../../shared/transport';
import { conversationParameter, eventsParameter, optionsParameterV2 } from '../description';
import { fetchNewest } from '../newest';
import { downloadTriggerAttachments } from '../../shared/attachments/triggerDownloads';
import { listQuery, readOptions } from '../options';
import { messageItems, noMessagesText } from '../output';
import { sampleEventItem } from '../events/testEvent';
import { CheckLoop } from './checkLoop';
import {
	DEFAULT_INTERVAL_SECONDS,
	intervalMs,
	MIN_INTERVAL_MS,
	UNIT_MS,
	type IntervalUnit,
} from './schedule';

export class MessagingTriggerV2 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 2,
			subtitle: '={{"Every " + $parameter["interval"] + " " + $parameter["unit"]}}',
			defaults: { name: 'Messaging Trigger' },
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'messagingApi', required: true }],
			properties: [
				{
					displayName:
						'Needs n8n 2.20 or newer. On older n8n, use version 1: there a restart can deliver messages again unmarked.',
					name: 'versionNotice',
					type: 'notice',
					default: '',
				},
				eventsParameter,
				conversationParameter,
				{
					displayName: 'Check Every',
					name: 'interval',
					type: 'number',
					typeOptions: { minValue: MIN_INTERVAL_MS / 1000 },
					default: DEFAULT_INTERVAL_SECONDS,
					description: `How often to check for new messages: at least ${MIN_INTERVAL_MS / 1000} seconds, ${DEFAULT_INTERVAL_SECONDS} by default. Each check with nothing new is one request.`,
					displayOptions: { show: { unit: ['seconds'] } },
				},
				{
					displayName: 'Check Every',
					name: 'interval',
					type: 'number',
					typeOptions: { minValue: 1 },
					// The same default as in seconds: a workflow saved with the default stores no value.
					default: DEFAULT_INTERVAL_SECONDS,
					description:
						'How often to check for new messages, in the unit below. Each check with nothing new is one request.',
					displayOptions: { show: { unit: ['minutes', 'hours'] } },
				},
				{
					displayName: 'Unit',
					name: 'unit',
					type: 'options',
					options: [
						{ name: 'Seconds', value: 'seconds' },
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
					],
					default: 'seconds',
					description: 'The unit of Check Every',
				},
				optionsParameterV2,
			],
		};
	}

	methods = { listSearch: { searchConversations } };

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const options = readOptions(this);
		const context = this as unknown as RequestContext;

		if (this.getMode() === 'manual') {
			// Fetch Test Event: the newest message, or a sample of the first chosen event when New Message
			// is not chosen; the stored state is neither read nor written.
			const manualTriggerFunction = async () => {
				const credentials = await getMessagingCredentials.call(context);
				const unitSetting = credentials.timestampUnit ?? 'auto';
				if (!options.events.events.includes('newMessage')) {
					const sample = await sampleEventItem(context, options, { ...options, unitSetting });
					if (!('json' in sample))
						throw new NodeOperationError(this.getNode(), sample.message, {
							description: sample.description,
						});
					this.emit([[sample]]);
					return;
				}
				const fetchPage = servicePages(context, 'messages', listQuery(options));
				const newest = await fetchNewest(fetchPage, options.pageSize);
				if (!newest) {
					const { message, description } = noMessagesText(options.conversationId);
					throw new NodeOperationError(this.getNode(), message, { description });
				}
				await downloadTriggerAttachments(this, [newest]);
				const own = credentials.ownContactId?.trim() || undefined;
				this.emit([messageItems([newest], { ...options, unitSetting, own })]);
			};
			return { manualTriggerFunction };
		}

		const chosen = this.getNodeParameter('interval', DEFAULT_INTERVAL_SECONDS) as number;
		const unit = this.getNodeParameter('unit', 'seconds') as IntervalUnit;
		const interval = intervalMs(chosen, unit);
		if (interval !== Number(chosen) * UNIT_MS[unit])
			this.logger.warn(
				`Messaging Trigger: Check Every ${chosen} ${unit} is under the minimum; checking every ${interval / 1000} seconds`,
			);
		const loop = new CheckLoop(this, { intervalMs: interval, options });
		await loop.start();
		return { closeFunction: async () => await loop.stop() };
	}
}
