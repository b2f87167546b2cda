import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { conversationLocator, isoTimestampsOption } from '../shared/descriptions';
import { searchConversations } from '../shared/listSearch';
import { listPage as listServicePage } from '../shared/paginate';
import { fromMilliseconds, unitOfTimestamp, withIsoTimestamps, type TimestampUnit } from '../shared/timestamps';
import { getMessagingCredentials, messagingApiRequest } from '../shared/transport';
import {
	advance,
	isNew,
	isNewestFirst,
	isTriggerState,
	reachedKnownHistory,
	type TriggerMessage,
	type TriggerState,
} from './pollState';

const MAX_PAGES_PER_POLL = 200;
const MAX_RECENT_IDS = 500;
const OWN_CONTACT_LOOKUPS_PER_POLL = 3;

export class MessagingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging Trigger',
		name: 'messagingTrigger',
		icon: { light: 'file:messaging.svg', dark: 'file:messaging.dark.svg' },
		group: ['trigger'],
		version: 1,
		description: 'Starts the workflow when new messages arrive, each message once, oldest first',
		subtitle: '={{"New messages"}}',
		defaults: { name: 'Messaging Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingApi', required: true }],
		properties: [
			{
				...conversationLocator,
				required: false,
				description: 'Only messages of this conversation. Leave empty for messages of every conversation.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					isoTimestampsOption,
					{
						displayName: 'Emit Existing Messages on Activation',
						name: 'emitExisting',
						type: 'boolean',
						default: false,
						description:
							'Whether the first poll after activation also emits the messages that already exist. Off: it only notes where the stream stands.',
					},
					{
						displayName: 'Look-Back Window (Seconds)',
						name: 'lookBackSeconds',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 60,
						description:
							'Messages that show up late with a creation time up to this much older than the newest one delivered are still delivered, once. A larger window reads more messages per poll.',
					},
					{
						displayName: 'Page Size',
						name: 'pageSize',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 1000 },
						default: 100,
						description: 'How many messages each request asks for while polling',
					},
					{
						displayName: 'Skip My Own Messages',
						name: 'skipOwnMessages',
						type: 'boolean',
						default: true,
						description:
							'Whether to leave out the messages sent by the account of the credential, so an auto-reply never answers itself. Uses "Your Contact ID" of the credential, or learns it from a one-to-one conversation.',
					},
				],
			},
		],
	};

	methods = { listSearch: { searchConversations } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const conversationId = String(
			this.getNodeParameter('conversationId', '', { extractValue: true }) ?? '',
		).trim();
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const credentials = await getMessagingCredentials.call(this);
		const query = { conversation_id: conversationId === '' ? undefined : conversationId };
		const pageSize = Number(options.pageSize ?? 100);
		const unitSetting = credentials.timestampUnit ?? 'auto';

		const output = (messages: IDataObject[], warning?: string) => [
			messages.map((message) => ({
				json: {
					...(options.isoTimestamps ? withIsoTimestamps(message, unitSetting) : message),
					...(warning ? { warning } : {}),
				},
			})),
		];

		if (this.getMode() === 'manual') {
			const newest = await fetchNewest.call(this, query, pageSize);
			if (!newest) {
				throw new NodeOperationError(
					this.getNode(),
					conversationId ? `There are no messages in conversation ${conversationId} yet` : 'There are no messages yet',
					{ description: 'Send a message, then fetch the test event again.' },
				);
			}
			return output([newest as IDataObject]);
		}

		const staticData = this.getWorkflowStaticData('node');
		const stored = isTriggerState(staticData.state) ? (staticData.state as TriggerState) : null;
		const emitExisting = options.emitExisting === true;
		const listing = await listSinceState.call(this, stored, query, pageSize, {
			emitExisting,
			lookBackSeconds: Number(options.lookBackSeconds ?? 60),
		});
		const unit = unitFor(unitSetting, listing.messages);
		const seconds = (s: number) => (unit === 'milliseconds' ? s * 1000 : s);
		const { emit, next } = advance(
			stored,
			listing.messages,
			{
				now: fromMilliseconds(Date.now(), unit),
				lookBack: seconds(Number(options.lookBackSeconds ?? 60)),
				maxRecentIds: MAX_RECENT_IDS,
			},
			emitExisting,
		);

		let delivered: TriggerMessage[] = emit;
		if (options.skipOwnMessages !== false && emit.length > 0) {
			const own = credentials.ownContactId?.trim() || next.ownContactId || (await learnOwnContact.call(this, emit));
			if (own) {
				if (!credentials.ownContactId?.trim()) next.ownContactId = own;
				delivered = emit.filter((m) => !sentBy(m, own));
			}
		}

		// Only now, with the whole poll done, is the state written: a failed poll leaves it untouched.
		staticData.state = next;
		if (delivered.length === 0) return null;
		const warning = listing.gap
			? `Possible gap: ${listing.gap} Messages older than the oldest one delivered in this run may have been missed.`
			: undefined;
		return output(delivered as IDataObject[], warning);
	}
}

function unitFor(setting: string, messages: TriggerMessage[]): TimestampUnit {
	if (setting === 'seconds' || setting === 'milliseconds') return setting;
	const sample = messages.find((m) => Number.isFinite(m.created_at));
	return sample ? unitOfTimestamp(sample.created_at) : 'seconds';
}

function sentBy(message: TriggerMessage, own: string): boolean {
	const contact = message.contact as IDataObject | string | undefined;
	if (typeof contact === 'string') return contact === own;
	return !!contact && (contact.id === own || contact.username === own);
}

type Query = { conversation_id?: string };

function isTriggerMessage(value: unknown): value is TriggerMessage {
	const m = value as TriggerMessage | null;
	return !!m && typeof m.id === 'string' && typeof m.created_at === 'number';
}

async function listPage(
	this: IPollFunctions,
	query: Query,
	limit: number,
	cursor?: string,
): Promise<{ messages: TriggerMessage[]; hasMore: boolean }> {
	const page = await listServicePage.call(this, 'messages', query, { cursor, limit });
	const messages = (page.data as unknown[]).filter(isTriggerMessage);
	return { messages, hasMore: page.hasMore };
}

/**
 * Lists messages newest first until the known history is reached, or, when the service lists in another
 * order, to the end. `gap` says why the listing may be incomplete.
 */
async function listSinceState(
	this: IPollFunctions,
	state: TriggerState | null,
	query: Query,
	pageSize: number,
	settings: { emitExisting: boolean; lookBackSeconds: number },
): Promise<{ messages: TriggerMessage[]; gap?: string }> {
	const messages: TriggerMessage[] = [];
	const seen = new Set<string>();
	let newestFirst = true;
	let cursor: string | undefined;
	let previousLast: TriggerMessage | undefined;
	let stopLine: TriggerState | null = state;
	for (let pages = 1; ; pages++) {
		const page = await listPage.call(this, query, pageSize, cursor);
		const fresh = page.messages.filter((m) => !seen.has(m.id));
		fresh.forEach((m) => seen.add(m.id));
		messages.push(...fresh);
		newestFirst &&= isNewestFirst(page.messages, previousLast);
		previousLast = page.messages[page.messages.length - 1] ?? previousLast;
		if (!state && !settings.emitExisting && newestFirst && messages.length > 0) {
			// First poll: only the look-back window below the newest message matters.
			const unit = unitOfTimestamp(messages[0].created_at);
			const window = unit === 'milliseconds' ? settings.lookBackSeconds * 1000 : settings.lookBackSeconds;
			stopLine = { version: 1, settledThrough: messages[0].created_at - window, newest: null, recent: [] };
		}
		if (!page.hasMore || reachedKnownHistory(stopLine, page.messages, newestFirst)) return { messages };

		// Below a repeated page there may be more new messages, unless this page was already all known.
		const unknownLeft = page.messages.some((m) => isNew(stopLine, m));
		if (fresh.length === 0 || previousLast === undefined || previousLast.id === cursor) {
			return { messages, gap: unknownLeft ? 'the service did not page further (it ignored the starting_after cursor).' : undefined };
		}
		if (pages >= MAX_PAGES_PER_POLL) {
			return { messages, gap: `more than ${MAX_PAGES_PER_POLL} pages of new messages arrived since the last poll.` };
		}
		cursor = previousLast.id;
	}
}

/** The newest message, for "Fetch Test Event"; the stored state is neither read nor written. */
async function fetchNewest(this: IPollFunctions, query: Query, pageSize: number): Promise<TriggerMessage | undefined> {
	let newest: TriggerMessage | undefined;
	let cursor: string | undefined;
	let previousLast: TriggerMessage | undefined;
	for (let pages = 1; pages <= MAX_PAGES_PER_POLL; pages++) {
		const page = await listPage.call(this, query, pageSize, cursor);
		for (const m of page.messages) if (!newest || m.created_at > newest.created_at) newest = m;
		const newestFirst = isNewestFirst(page.messages, previousLast);
		const last = page.messages[page.messages.length - 1];
		if (!page.hasMore || newestFirst || !last || last.id === cursor) break;
		previousLast = last;
		cursor = last.id;
	}
	return newest;
}

/**
 * Who "I" am, learned without asking the user: in a one-to-one conversation, the sender who is not
 * the conversation's other contact is the account of the credential.
 */
async function learnOwnContact(this: IPollFunctions, messages: TriggerMessage[]): Promise<string | undefined> {
	const byConversation = new Map<string, TriggerMessage[]>();
	for (const m of messages) {
		if (typeof m.conversation_id !== 'string') continue;
		byConversation.set(m.conversation_id, [...(byConversation.get(m.conversation_id) ?? []), m]);
	}
	for (const [conversationId, list] of [...byConversation].slice(0, OWN_CONTACT_LOOKUPS_PER_POLL)) {
		const conversation = await messagingApiRequest.call(this, { method: 'GET', path: ['conversations', conversationId] });
		if (conversation.group_id || typeof conversation.contact_id !== 'string') continue;
		const mine = list.find((m) => {
			const senderId = (m.contact as IDataObject | undefined)?.id;
			return typeof senderId === 'string' && senderId !== conversation.contact_id;
		});
		if (mine) return String((mine.contact as IDataObject).id);
	}
	return undefined;
}
