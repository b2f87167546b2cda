import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION, updateDisplayOptions } from 'n8n-workflow';

import { conversationLocator } from '../../descriptions/locators';
import { getRequiredId } from '../../helpers/parameters';
import { inputError } from '../../../shared/inputError';
import { getConversationOrFail, postMessage } from '../../helpers/conversations';
import { errorItem, nodeErrorOf } from '../../helpers/errorItem';
import { getMessageText } from '../../helpers/reviewRequest';
import { requestMessageText, waitTillFrom, type LimitWaitTime } from '../../sendAndWait/links';
import { formFieldsProperty, readFormFields } from '../../sendAndWait/formFields';
import { limitWaitTimeOption, responseLinks } from '../../sendAndWait/request';
import type { RunContext } from '../../types';
import { formattedText, textFormatOption } from '../../descriptions/chatText';
import { updateRequestOptions } from '../../helpers/requestUpdate';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Ask a person for approval in a conversation and wait until they answer on the page its link opens. ${CONVERSATION}; Message: what to approve. Returns the person’s decision.`;

/** n8n resumes a timed-out wait with the node disabled (WorkflowExecute.handleWaitingState): none of its code runs. */
const NOT_ON_TIMEOUT =
	'Not when Limit Wait Time ends the wait: n8n then goes on without running the node.';

const properties: INodeProperties[] = [
	{ ...conversationLocator, description: 'The conversation to send the request to' },
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		description: 'The request. The response links are added below it.',
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'approval',
		description: 'How the person responds; the execution resumes with their response',
		options: [
			{
				name: 'Approval',
				value: 'approval',
				description:
					'The person opens a link in the message and approves (or declines) with the button on that page',
			},
			{
				name: 'Free Text',
				value: 'freeText',
				description:
					'The person opens a link in the message and sends the response typed into the form there',
			},
			{
				name: 'Custom Form',
				value: 'customForm',
				description:
					'The person opens a link in the message and sends the form of your fields there',
			},
		],
	},
	{ ...formFieldsProperty, displayOptions: { show: { responseType: ['customForm'] } } },
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		description: 'Which answers the person is offered, and the labels of their links',
		displayOptions: { show: { responseType: ['approval'] } },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						default: 'single',
						description: 'Whether the message offers an approve link only, or a decline link too',
						options: [
							{ name: 'Approve Only', value: 'single' },
							{ name: 'Approve and Decline', value: 'double' },
						],
					},
					{
						displayName: 'Approve Button Label',
						name: 'approveLabel',
						type: 'string',
						default: 'Approve',
						description: 'The label before the approve link in the message',
					},
					{
						displayName: 'Decline Button Label',
						name: 'disapproveLabel',
						type: 'string',
						default: 'Decline',
						description: 'The label before the decline link in the message',
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { responseType: ['approval'] } },
		options: [limitWaitTimeOption, textFormatOption, ...updateRequestOptions(NOT_ON_TIMEOUT)],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { responseType: ['freeText', 'customForm'] } },
		options: [
			limitWaitTimeOption,
			{
				displayName: 'Message Button Label',
				name: 'messageButtonLabel',
				type: 'string',
				default: 'Respond',
				description: 'The label before the form link in the message',
			},
			{
				displayName: 'Response Form Title',
				name: 'responseFormTitle',
				type: 'string',
				default: '',
				description: 'Title of the form page the person answers on',
			},
			{
				displayName: 'Response Form Description',
				name: 'responseFormDescription',
				type: 'string',
				default: '',
				description: 'Text above the answer field (by default the message)',
			},
			{
				displayName: 'Response Form Button Label',
				name: 'responseFormButtonLabel',
				type: 'string',
				default: 'Submit',
				description: 'The label of the button that sends the answer',
			},
			textFormatOption,
			...updateRequestOptions(NOT_ON_TIMEOUT),
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: [SEND_AND_WAIT_OPERATION] } },
	properties,
);

/**
 * Sends one request message (for the first item, as n8n's send-and-wait nodes do) and parks the
 * execution until the person answers on the page a link opens, or the wait limit passes. The webhook side (webhook.ts)
 * turns the click into the node's output; on a time-out n8n goes on with the input items, the node disabled.
 */
export async function executeSendAndWait(
	this: IExecuteFunctions,
	run: RunContext,
): Promise<INodeExecutionData[][]> {
	const itemIndex = 0;
	try {
		const conversationId = getRequiredId(this, 'conversationId', itemIndex, 'Conversation');
		const message = formattedText(this, itemIndex, getMessageText(this, itemIndex));
		const limit = this.getNodeParameter(
			'options.limitWaitTime.values',
			itemIndex,
			{},
		) as LimitWaitTime;
		const waitTill = waitTillFrom(limit, Date.now());
		if (!(waitTill instanceof Date))
			throw inputError(this, itemIndex, 'Limit Wait Time', waitTill.problem);
		if (this.getNodeParameter('responseType', itemIndex, 'approval') === 'customForm') {
			const fields = readFormFields(this.getNodeParameter('formFields.values', itemIndex, []));
			if (!Array.isArray(fields)) throw inputError(this, itemIndex, 'Form Fields', fields.problem);
		}
		await getConversationOrFail(this, conversationId, itemIndex, run.requestOptions(itemIndex));
		await postMessage(
			this,
			conversationId,
			requestMessageText(message, responseLinks(this)),
			itemIndex,
			run.requestOptions(itemIndex),
		);
		await this.putExecutionToWait(waitTill);
	} catch (error) {
		if (!this.continueOnFail()) throw nodeErrorOf(this.getNode(), error, itemIndex);
		return [[{ json: errorItem(error), pairedItem: { item: itemIndex } }]];
	}
	return [this.getInputData()];
}
