import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProblem } from '../nodes/shared/transport/url';

export class MessagingApi implements ICredentialType {
	name = 'messagingApi';

	displayName = 'Messaging API';

	icon: Icon = { light: 'file:messaging.svg', dark: 'file:messaging.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-messaging/n8n-nodes-messaging#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'The address of the Messaging API, without the version: requests go to {Base URL}/v1/…. A trailing slash or /v1 is ignored.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Sent as "Authorization: Bearer <token>" with every request',
		},
		{
			displayName: 'Timestamp Unit',
			name: 'timestampUnit',
			type: 'options',
			default: 'auto',
			options: [
				{
					name: 'Detect From the Service',
					value: 'auto',
					description:
						'Read the unit off the timestamps the service returns (safe for any date from 1973 to 5138)',
				},
				{ name: 'Seconds', value: 'seconds' },
				{ name: 'Milliseconds', value: 'milliseconds' },
			],
			description: 'Unit of the integer timestamps the service uses (created_at, archived_at, …)',
		},
		{
			displayName: 'Your Contact ID',
			name: 'ownContactId',
			type: 'string',
			default: '',
			placeholder: 'ct_123',
			description:
				'Optional. The contact ID or username of the account this token belongs to. The Messaging Trigger uses it to skip the messages you send, so an auto-reply never answers itself. Left empty, the trigger learns it from a one-to-one conversation: the sender who is not that conversation’s other contact.',
		},
	];

	/**
	 * Adds `Authorization: Bearer <token>` to every request n8n sends with this credential. A function
	 * rather than the generic `'=Bearer {{$credentials.accessToken}}'` block: n8n resolves that expression
	 * in its expression sandbox on every request, a measurable CPU cost per request (BENCHMARKS.md).
	 * The header on the wire is the same.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// Refused here too, so the Test button says it: user info would be sent and shown, a query glued on.
		const problem = baseUrlProblem(String(credentials.baseUrl ?? ''));
		if (problem) throw new Error(`The Base URL ${problem}`);
		// Trimmed: a token pasted with a trailing newline would otherwise be an invalid header value.
		const token = String(credentials.accessToken ?? '').trim();
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${token}` },
		};
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/\\/v1$/i, "")}}/v1',
			url: '/conversations',
			qs: { limit: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'Authentication failed: the service did not accept this access token',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No Messaging API at this Base URL ({Base URL}/v1/conversations was not found)',
				},
			},
		],
	};
}
