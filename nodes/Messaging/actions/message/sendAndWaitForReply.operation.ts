import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	getMessagingCredentials,
	messagingApiRequest,
	type RequestOptions,
} from '../../../shared/transport';
import { listPage, servicePages } from '../../../shared/paginate';
import { senderOf } from '../../../shared/ids';
import { optionsCollection } from '../../descriptions/common';
import { conversationLocator } from '../../descriptions/locators';
import { getConversationOrFail, postMessage } from '../../helpers/conversations';
import { waitFor } from '../../sendAndWaitForReply/waitLoop';
import {
	CHECK_PAGE_SIZE,
	outcomeOf,
	ReplyWatcher,
	WaitProblem,
} from '../../sendAndWaitForReply/replyWatcher';
import { listedMessage, listedMessages, type ListedMessage } from '../../../shared/listedMessage';
import {
	MAX_REPLY_TIMEOUT_SECONDS,
	readReplySettings,
} from '../../sendAndWaitForReply/replySettings';
import { simplifyFields } from '../../../shared/simplify/fields';
import { attachmentDownloadOptions } from '../../../shared/attachments/descriptions';
import { withReplyAttachments } from '../../../shared/attachments/actionDownloads';
import { itemSuffix } from '../../../shared/inputError';
import { instructionLine } from '../../sendAndWaitForReply/approval';
import { approvalProperties, approvalWait } from '../../sendAndWaitForReply/approvalWait';
import type { OperationResult, RunContext } from '../../types';
import { textFormatOption } from '../../descriptions/chatText';
import { updateRequestOptions } from '../../helpers/requestUpdate';
import {
	ON_TIMEOUT_TOO,
	timeoutFailure,
	withRequestUpdate,
} from '../../sendAndWaitForReply/writeBack';
import { CONVERSATION } from '../../descriptions/tool';

export const toolDescription = `Send a question to a conversation and wait for the next message from someone else there. ${CONVERSATION}; Message: the question. Returns {sent, reply, timedOut}; reply is null when nobody answered in time.`;

export const simplifyAs = 'reply';

/** One item at a time by default: a second question is asked once the first is answered. */
export const parallelRequests = 1;

const properties: INodeProperties[] = [
	{ ...conversationLocator, description: 'The conversation to ask in; the reply is awaited there' },
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		description:
			'The question or request to send. The next message in the conversation from someone else is the reply.',
	},
	...approvalProperties,
	{
		displayName: 'Wait for Reply (Seconds)',
		name: 'replyTimeout',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_REPLY_TIMEOUT_SECONDS },
		default: 300,
		description: `How long to wait for the reply, at most ${MAX_REPLY_TIMEOUT_SECONDS} (one hour). The execution waits in memory and holds one of n8n's execution slots meanwhile; for longer waits use Send and Wait for Response.`,
	},
	{
		displayName: 'Check Every (Seconds)',
		name: 'checkInterval',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 5,
		description:
			'How often to look for the reply: one request per check while nothing came. A rate limit (429) spaces the checks further, it never fails the wait.',
	},
	{
		displayName: 'On Timeout',
		name: 'onTimeout',
		type: 'options',
		options: [
			{
				name: 'Output Timed Out Item',
				value: 'output',
				description: 'The workflow goes on with { sent, reply: null, timedOut: true }',
			},
			{
				name: 'Fail',
				value: 'error',
				description: 'The node fails (or, with Continue On Fail, outputs an error item)',
			},
		],
		default: 'output',
		description: 'What happens when no reply came in time',
	},
	...simplifyFields('reply'),
	optionsCollection({
		isoTimestamps: false,
		parallel: {
			default: parallelRequests,
			note: 'Kept at 1, items ask one after the other; above 1, several questions wait at once (each in its own conversation, or the replies may be taken in any order).',
		},
		extra: [
			{
				displayName: 'Only From Contact',
				name: 'fromContact',
				type: 'string',
				default: '',
				placeholder: 'ct_123',
				description:
					'Only a message from this contact counts as the reply: a contact ID (ct_123), matched by ID only and never by a username, or @ and a username (@ann). By default anyone but you.',
			},
			{
				displayName: 'Reply Must Match',
				name: 'replyPattern',
				type: 'string',
				default: '',
				placeholder: '^(yes|no)\\b',
				description:
					'A regular expression (JavaScript syntax; /…/i for flags). Messages that do not match are skipped and the wait goes on.',
			},
			...attachmentDownloadOptions,
			textFormatOption,
			...updateRequestOptions(ON_TIMEOUT_TOO),
		],
	}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendAndWaitForReply'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
): Promise<OperationResult> {
	const settings = readReplySettings(this, itemIndex);
	const requestOptions = run.requestOptions(itemIndex);
	await getConversationOrFail(this, settings.conversationId, itemIndex, requestOptions);
	const text = settings.approval
		? `${settings.text.trimEnd()}\n\n${instructionLine(settings.approval)}`
		: settings.text;
	const sent = listedMessage(
		await postMessage(this, settings.conversationId, text, itemIndex, requestOptions),
	);
	if (sent === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			'The Messaging service did not return the sent message’s ID',
			{
				itemIndex,
			},
		);
	}

	// Who "I" am: the credential's contact if set, and in any case the sender of the message just sent.
	const ownSetting = String((await getMessagingCredentials.call(this)).ownContactId ?? '').trim();
	const { id: ownId, username: ownName } = senderOf(sent);
	const own = [ownSetting, ownId ?? '', ownName ?? ''].filter((w) => w !== '');

	const deadline = Date.now() + settings.timeoutMs;
	// A check neither waits for its turn or answer nor retries past the end of the wait for a reply, and
	// goes on through a storm that stopped the run's other requests (a served check lifts it).
	const checkOptions: RequestOptions = {
		itemIndex,
		pacer: run.pacer,
		timeoutMs: requestOptions.timeoutMs,
		deadline,
		throughRefusal: true,
	};
	const probeOrder = async (): Promise<ListedMessage[]> => {
		const page = await listPage.call(
			this,
			'messages',
			{},
			{ limit: CHECK_PAGE_SIZE },
			checkOptions,
		);
		return listedMessages(page.data);
	};
	const watcher = new ReplyWatcher(
		sent,
		{
			conversationId: settings.conversationId,
			own,
			fromContact: settings.approval ? undefined : settings.fromContact,
			pattern: settings.approval ? undefined : settings.pattern,
		},
		servicePages(this, 'messages', { conversation_id: settings.conversationId }, checkOptions),
		probeOrder,
		async () => {
			const answer = await outcomeOf(
				messagingApiRequest.call(
					this,
					{ method: 'GET', path: ['messages', sent.id] },
					{ ...checkOptions, expect: 'record' },
				),
			);
			if (!('error' in answer)) return true;
			const status = String((answer.error as { httpCode?: unknown }).httpCode);
			return status === '404' || status === '410' ? false : undefined;
		},
	);

	const approval =
		settings.approval && approvalWait(this, settings.approval, sent, own, watcher, checkOptions);
	const check = approval
		? approval.check
		: async () => {
				const reply = await watcher.check();
				return reply && { sent: sent as IDataObject, reply: reply as IDataObject, timedOut: false };
			};
	const outcome = await waitFor(this, check, {
		deadline,
		intervalMs: settings.intervalMs,
		itemIndex,
		explain: (error) =>
			approval?.explain(error) ??
			(error instanceof WaitProblem
				? new NodeOperationError(this.getNode(), `${error.message}${itemSuffix(this, itemIndex)}`, {
						itemIndex,
					})
				: undefined),
	});
	const written = async (result: IDataObject) =>
		await withRequestUpdate(this, itemIndex, requestOptions, sent, settings.text, result);
	if (outcome) {
		// The request is updated before any attachment is downloaded: the chat shows the answer at once.
		const result = (await written(outcome)) as IDataObject & { reply: IDataObject };
		return approval ? result : await withReplyAttachments(this, itemIndex, run, result);
	}

	if (settings.onTimeout === 'error')
		throw await timeoutFailure(this, itemIndex, requestOptions, sent, settings);
	return await written(
		approval ? approval.timedOut() : { sent: sent as IDataObject, reply: null, timedOut: true },
	);
}
