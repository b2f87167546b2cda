/** Send and Wait for Response's own pieces: the Limit Wait Time option and the signed response links. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ResponseLink } from './links';

export const limitWaitTimeOption: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description:
		'Whether to limit how long the execution waits for the response. When the time is up, the workflow goes on with the node’s input items (no "data" field).',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					description: 'After a time interval, or at a given date and time',
					options: [
						{
							name: 'After Time Interval',
							value: 'afterTimeInterval',
							description: 'Waits for a certain amount of time',
						},
						{
							name: 'At Specified Time',
							value: 'atSpecifiedTime',
							description: 'Waits until the set date and time',
						},
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: 1,
					description: 'The time to wait',
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					options: [
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Days', value: 'days' },
					],
					default: 'hours',
					description: 'Unit of the interval value',
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
					default: '',
					description: 'Continue the execution at this date and time',
				},
			],
		},
	],
};

/**
 * n8n before 2.20 (2.0.3 and 1.123.81 read) checks a waiting execution's link signature only when the node asked
 * for it, as n8n's own Send and Wait does; later versions always check and no longer have the method.
 */
function requireSignatureCheck(context: IExecuteFunctions): void {
	const older = context as IExecuteFunctions & { setSignatureValidationRequired?: () => void };
	if (typeof older.setSignatureValidationRequired === 'function')
		older.setSignatureValidationRequired();
}

/** The response links, signed by n8n for this execution and this node. */
export function responseLinks(context: IExecuteFunctions): ResponseLink[] {
	requireSignatureCheck(context);
	const responseType = context.getNodeParameter('responseType', 0, 'approval') as string;
	if (responseType === 'freeText' || responseType === 'customForm') {
		const label = String(
			context.getNodeParameter('options.messageButtonLabel', 0, 'Respond') || 'Respond',
		);
		return [{ label, url: context.getSignedResumeUrl() }];
	}
	const approval = context.getNodeParameter('approvalOptions.values', 0, {}) as IDataObject;
	const links: ResponseLink[] = [
		{
			label: String(approval.approveLabel || 'Approve'),
			url: context.getSignedResumeUrl({ approved: 'true' }),
		},
	];
	if (approval.approvalType === 'double') {
		links.push({
			label: String(approval.disapproveLabel || 'Decline'),
			url: context.getSignedResumeUrl({ approved: 'false' }),
		});
	}
	return links;
}
