/**
 * The resume side of Send and Wait for Response. n8n calls `webhook()` when a link of the request
 * message is opened, after it has checked the link's signature (WaitingWebhooks refuses a missing or
 * wrong one with 401 before any node code runs). What the webhook returns in `workflowData` becomes the
 * node's output and the execution goes on.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { listPage } from '../../shared/paginate';
import { getMessagingCredentials, messagingApiRequest } from '../../shared/transport';
import { timestampValue } from '../../shared/timestamps';
import { idText, sentByOneOf } from '../../shared/ids';
import { listedMessages, type ListedMessage } from '../../shared/listedMessage';
import { hasSignature, resumeMarker } from './links';
import { readFormFields, readSubmission } from './formFields';
import {
	PAGE_CSP,
	RESPONSE_FIELD,
	approvalPage,
	customFieldName,
	customFormPage,
	recordedPage,
	refusedPage,
	responseFormPage,
} from './pages';

/** GET shows the page (the approval's button, or a form); only POST, a person's press of its button, decides. */
export const sendAndWaitWebhooks = [
	{
		name: 'default' as const,
		httpMethod: 'GET' as const,
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	},
	{
		name: 'default' as const,
		httpMethod: 'POST' as const,
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	},
];

/** Pages read to find the request message's ID when the response arrives. */
const LOOKUP_PAGES = 4;
const LOOKUP_PAGE_SIZE = 50;

interface MinimalResponse {
	statusCode: number;
	setHeader(name: string, value: string): unknown;
	end(body?: string): unknown;
}

function sendPage(response: MinimalResponse, status: number, html: string): void {
	response.statusCode = status;
	response.setHeader('Content-Type', 'text/html; charset=utf-8');
	response.setHeader('Content-Security-Policy', PAGE_CSP);
	response.setHeader('Cache-Control', 'no-store');
	response.setHeader('X-Robots-Tag', 'noindex');
	response.end(html);
}

export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const response = this.getResponseObject() as unknown as MinimalResponse;
	const requestUrl = request.originalUrl ?? request.url ?? '';
	const method = request.method;

	if (this.getNodeParameter('operation', '') !== SEND_AND_WAIT_OPERATION) {
		sendPage(response, 404, refusedPage('This node is not waiting for a response.'));
		return { noWebhookResponse: true };
	}
	// n8n has verified the signature; a link without one never resumes anything, whatever n8n's settings.
	if (!hasSignature(requestUrl)) {
		sendPage(response, 401, refusedPage('The link is incomplete: its signature is missing.'));
		return { noWebhookResponse: true };
	}

	const responseType = this.getNodeParameter('responseType', 'approval') as string;
	const answer =
		responseType === 'freeText'
			? freeTextAnswer(this, method)
			: responseType === 'customForm'
				? customFormAnswer(this, method)
				: approvalAnswer(this, method);
	if ('page' in answer) {
		sendPage(response, answer.status, answer.page);
		return { noWebhookResponse: true };
	}

	const sentMessageId = await findRequestMessageId(this, requestUrl);
	sendPage(response, 200, recordedPage());
	return {
		noWebhookResponse: true,
		workflowData: [[{ json: { ...answer.output, sentMessageId } }]],
	};
}

/** A page to show (nothing decided), or the node's output. */
type Answer = { status: number; page: string } | { output: IDataObject };

/** Options > Response Form Title / Description / Button Label, as the form pages show them. */
function formTexts(context: IWebhookFunctions) {
	return {
		title: String(context.getNodeParameter('options.responseFormTitle', '') ?? ''),
		description: String(
			context.getNodeParameter('options.responseFormDescription', '') ||
				context.getNodeParameter('message', ''),
		),
		buttonLabel: String(
			context.getNodeParameter('options.responseFormButtonLabel', 'Submit') ?? 'Submit',
		),
	};
}

/** Only a person's press of the page's button (a POST to the same signed link) decides; a GET, whoever makes
 * it (a link preview, a mail gateway's scanner, a headless browser), is shown the button. */
function approvalAnswer(context: IWebhookFunctions, method: string | undefined): Answer {
	const approved = (context.getQueryData() as IDataObject).approved === 'true';
	if (method !== 'POST') {
		const options = context.getNodeParameter('approvalOptions.values', {}) as IDataObject;
		const buttonLabel = approved
			? String(options.approveLabel || 'Approve')
			: String(options.disapproveLabel || 'Decline');
		const message = String(context.getNodeParameter('message', '') ?? '');
		return { status: 200, page: approvalPage({ message, buttonLabel }) };
	}
	return { output: { data: { approved, respondedAt: new Date().toISOString() } } };
}

function freeTextAnswer(context: IWebhookFunctions, method: string | undefined): Answer {
	const form = formTexts(context);
	if (method !== 'POST') return { status: 200, page: responseFormPage(form) };
	const text = submittedText(context.getBodyData());
	if (text.trim() === '')
		return { status: 400, page: responseFormPage({ ...form, error: 'Please type a response.' }) };
	return { output: { data: { text, respondedAt: new Date().toISOString() } } };
}

/** n8n's custom form output, as its own nodes give it (2.40.7): `{ data: { <label>: value, respondedAt } }`,
 * respondedAt set last so a field of that name cannot stand in for the server's time. */
function customFormAnswer(context: IWebhookFunctions, method: string | undefined): Answer {
	const fields = readFormFields(context.getNodeParameter('formFields.values', []));
	if (!Array.isArray(fields))
		return {
			status: 500,
			page: refusedPage(`The form cannot be shown: Form Fields ${fields.problem}.`),
		};
	const form = { ...formTexts(context), fields };
	if (method !== 'POST') return { status: 200, page: customFormPage(form) };
	const submitted = readSubmission(fields, context.getBodyData(), customFieldName);
	if ('problem' in submitted)
		return { status: 400, page: customFormPage({ ...form, error: submitted.problem }) };
	return {
		output: { data: { ...(submitted.data as IDataObject), respondedAt: new Date().toISOString() } },
	};
}

/** The answer from a urlencoded form (`response=…`) or a multipart one (n8n puts fields under `data`). */
function submittedText(body: IDataObject | undefined): string {
	const value = body?.[RESPONSE_FIELD] ?? (body?.data as IDataObject | undefined)?.[RESPONSE_FIELD];
	if (Array.isArray(value)) return String(value[0] ?? '');
	return typeof value === 'string' ? value : '';
}

/**
 * The request message's ID, so a later step can edit or delete it. The links are signed before the
 * message exists, so its ID cannot be in them: it is the message of the conversation whose text holds
 * this link's `/<execution>/<node>?`. A person may paste or quote the link, so of those it is the one
 * sent by the credential's account when *Your Contact ID* says which that is, else the oldest (the
 * request came first): the newest would hand a later "delete sentMessageId" step the person's message.
 * A failed lookup never blocks the response: the ID is then null.
 */
async function findRequestMessageId(
	context: IWebhookFunctions,
	requestUrl: string,
): Promise<string | null> {
	const marker = resumeMarker(requestUrl);
	const conversationId = String(
		context.getNodeParameter('conversationId', '', { extractValue: true }) ?? '',
	).trim();
	if (!marker || conversationId === '') return null;
	// The transport needs only what a webhook context also offers: credentials, the node, httpRequest helpers.
	const requester = context as unknown as IExecuteFunctions;
	const holding: ListedMessage[] = [];
	try {
		const own = String((await getMessagingCredentials.call(requester)).ownContactId ?? '').trim();
		// In a direct conversation the person is its contact: their messages are not the request.
		const conversation = await messagingApiRequest.call(requester, {
			method: 'GET',
			path: ['conversations', conversationId],
		});
		const person = idText(conversation.contact_id) ?? '';
		let cursor: string | undefined;
		for (let page = 0; page < LOOKUP_PAGES; page++) {
			const result = await listPage.call(
				requester,
				'messages',
				{ conversation_id: conversationId },
				{ cursor, limit: LOOKUP_PAGE_SIZE },
			);
			const messages = listedMessages(result.data);
			holding.push(
				...messages.filter((m) => typeof m.message === 'string' && m.message.includes(marker)),
			);
			const last = messages[messages.length - 1];
			if (!result.hasMore || last === undefined || last.id === cursor) break;
			cursor = last.id;
		}
		return requestMessageId(holding, own, person);
	} catch (error) {
		context.logger.warn(
			`Messaging: could not look up the request message: ${(error as Error).message}`,
		);
	}
	return null;
}

/**
 * Of the messages holding the link, the oldest the account sent when `own` names it (none: null), else
 * the oldest not sent by `person` (a direct conversation's contact).
 */
export function requestMessageId(
	holding: ListedMessage[],
	own: string,
	person: string,
): string | null {
	// Knowing who "I" am, only my messages can be the request; else any but the person's.
	const pool =
		own !== ''
			? holding.filter((m) => sentByOneOf(m, [own]))
			: holding.filter((m) => !sentByOneOf(m, [person]));
	const createdAt = (m: ListedMessage) => timestampValue(m.created_at) ?? Infinity;
	const oldest = pool.reduce<ListedMessage | undefined>(
		(best, m) => (best === undefined || createdAt(m) < createdAt(best) ? m : best),
		undefined,
	);
	return oldest ? String(oldest.id) : null;
}
