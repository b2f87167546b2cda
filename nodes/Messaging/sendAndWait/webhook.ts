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

import {
	outcomeLine,
	updateRequestMessage,
	updatedRequestText,
	DEFAULT_OUTCOME_LINE,
} from '../helpers/requestUpdate';
import { hasSignature } from './links';
import { findRequestMessage, type RequestMessage } from './requestLookup';
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

	const sent = await findRequestMessage(this, requestUrl);
	sendPage(response, 200, recordedPage());
	const json: IDataObject = { ...answer.output, sentMessageId: sent?.id ?? null };
	if (this.getNodeParameter('options.updateRequestMessage', false) === true)
		json.requestUpdate = await writeBack(
			this,
			sent,
			answer.output.data as IDataObject,
			responseType,
		);
	return { noWebhookResponse: true, workflowData: [[{ json }]] };
}

/** Update Request Message: the answer written below the request. The person is not known, only the answer. */
async function writeBack(
	context: IWebhookFunctions,
	request: RequestMessage | null,
	data: IDataObject,
	responseType: string,
): Promise<IDataObject> {
	const approved = responseType === 'approval' ? data.approved : undefined;
	const line = outcomeLine(
		String(context.getNodeParameter('options.outcomeLine', DEFAULT_OUTCOME_LINE) ?? ''),
		{
			outcome: approved === true ? 'Approved' : approved === false ? 'Declined' : 'Answered',
			by: [],
			at: new Date(String(data.respondedAt)),
		},
		context.getTimezone(),
	);
	// The transport needs only what a webhook context also offers: credentials, the node, httpRequest helpers.
	return await updateRequestMessage(
		context as unknown as IExecuteFunctions,
		request?.id,
		updatedRequestText(request?.text ?? '', line),
		{},
	);
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
