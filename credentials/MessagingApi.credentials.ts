import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
					description: 'Read the unit off the timestamps the service returns (safe for any date from 1973 to 5138)',
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
				'Optional. The contact ID or username of the account this token belongs to. The Messaging Trigger uses it to skip the messages you send, so an auto-reply never answers itself. Left empty, the trigger learns it from the messages this credential sends.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

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
