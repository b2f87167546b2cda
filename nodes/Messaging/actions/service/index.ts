import type { INodeProperties } from 'n8n-workflow';

import { toolTexts } from '../../descriptions/tool';
import type { MessagingOperation } from '../../types';
import * as checkCompatibility from './checkCompatibility.operation';

export const operations: Record<string, MessagingOperation> = { checkCompatibility };

export const toolDescriptions = toolTexts(operations);

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['service'] } },
		options: [
			{
				name: 'Check Compatibility',
				value: 'checkCompatibility',
				description:
					'Probe the credential’s service and report what the node detects (timestamp unit, list order, paging, reactions, rate limits, errors, attachment URLs) and what it does about each',
				action: 'Check compatibility with the service',
			},
		],
		default: 'checkCompatibility',
	},
	...checkCompatibility.description,
];
