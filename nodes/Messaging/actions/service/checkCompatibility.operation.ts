/**
 * Service → Check Compatibility: probes the credential's service with a few GETs (and, when asked, one
 * conversation created and deleted) and outputs what the node detects, each with what it does about it.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getMessagingCredentials, normalizeBaseUrl } from '../../../shared/transport';
import { redact, secretsOf } from '../../../shared/transport/redact';
import { optionsCollection } from '../../descriptions/common';
import { getOptionalId } from '../../helpers/parameters';
import { inputError } from '../../../shared/inputError';
import type { OperationResult, RunContext } from '../../types';
import { Prober } from './prober';
import { compatibilityReport } from './report';

export const toolDescription = `Diagnose the Messaging service when its answers look wrong: probes it with GET requests only (unless the workflow turned on Write Probe) and returns one report of what the node detects (timestamp unit, list order, cursor, page size, ids, reactions, attachment URLs, rate-limit headers, error shape), each {result, status, evidence, nodeWill}, with the findings to look at in attention. Takes no arguments. About 4,500 characters.`;

const properties: INodeProperties[] = [
	{
		displayName:
			'Sends only GET requests unless Write Probe is on: up to five, and one more for each page size the service refuses. Outputs one report.',
		name: 'checkNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Write Probe',
		name: 'writeProbe',
		type: 'boolean',
		default: false,
		description:
			'Whether to also create one conversation with the contact below, delete it and read it again, to check that Create and Delete work. Off: only GET requests are sent.',
	},
	{
		displayName: 'Contact ID',
		name: 'contactId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'ct_123',
		description:
			'The contact the probe’s conversation is created with; it is deleted again right after',
		displayOptions: { show: { writeProbe: [true] } },
	},
	optionsCollection({
		isoTimestamps: false,
		parallel: {
			default: 1,
			note: 'Kept at 1, items are checked one after the other, so one check’s requests do not meet another’s.',
		},
	}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['service'], operation: ['checkCompatibility'] } },
	properties,
);

/** Every text of the report with the token (and the Base URL's user info) masked, whatever the service echoed. */
function redacted(value: unknown, secrets: string[]): unknown {
	if (typeof value === 'string') return redact(value, secrets);
	if (Array.isArray(value)) return value.map((inner) => redacted(inner, secrets));
	if (!value || typeof value !== 'object') return value;
	return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v, secrets)]));
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const writeProbe = this.getNodeParameter('writeProbe', itemIndex, false) === true;
	const contactId = writeProbe ? getOptionalId(this, 'contactId', itemIndex, 'Contact ID') : '';
	if (writeProbe && contactId === '') {
		throw inputError(
			this,
			itemIndex,
			'Contact ID',
			'is empty (Write Probe creates a conversation with this contact, then deletes it)',
		);
	}
	const credentials = await getMessagingCredentials.call(this);
	const prober = new Prober(this, run, itemIndex);
	const conversations = await prober.list('conversations');
	const messages = await prober.list('messages');
	const missing = await prober.missing();
	const write = writeProbe ? await prober.write(contactId) : undefined;
	const report = compatibilityReport(
		{
			unitSetting: credentials.timestampUnit ?? 'auto',
			baseUrl: normalizeBaseUrl(String(credentials.baseUrl ?? '')),
			conversations,
			messages,
			missing,
			answers: prober.answers,
			requests: prober.requests,
			write,
		},
		Date.now(),
	);
	return redacted(report, secretsOf(credentials)) as IDataObject;
}
