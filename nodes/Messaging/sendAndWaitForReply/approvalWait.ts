/** Send and Wait for Reply's approval in the chat: its parameters and one check of the decision. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { messagingApiRequest, type RequestOptions } from '../../shared/transport';
import {
	decide,
	KeywordTally,
	stateFromReactions,
	type ApprovalRules,
	type ApprovalState,
} from './approval';
import { itemSuffix } from '../../shared/inputError';
import type { ListedMessage } from '../../shared/listedMessage';
import type { ReplyWatcher } from './replyWatcher';

const approval = { show: { responseType: ['approvalByReaction', 'approvalByKeyword'] } };

export const approvalProperties: INodeProperties[] = [
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'reply',
		description: 'What ends the wait',
		options: [
			{
				name: 'Reply',
				value: 'reply',
				description: 'The next message from someone else in the conversation',
			},
			{
				name: 'Approval by Reaction',
				value: 'approvalByReaction',
				description: 'Approvers react to the message (e.g. +1 to approve, -1 to decline)',
			},
			{
				name: 'Approval by Keyword',
				value: 'approvalByKeyword',
				description: 'Approvers reply with an approve word alone, or a decline word',
			},
		],
	},
	{
		displayName: 'Approvers',
		name: 'approvers',
		type: 'string',
		default: '',
		placeholder: 'ct_123, @ann',
		description:
			'Who may decide, separated by commas: a contact ID (ct_123), or @ and a username (@ann). An ID matches only the contact with that ID, never a username. A username can be changed by its owner, so prefer IDs; reactions name contacts by ID, so @ entries never match a reaction. Each entry counts for one contact (the first to vote through it), each contact once. Empty: anyone but the account itself.',
		displayOptions: approval,
	},
	{
		displayName: 'Approvals Required',
		name: 'approvalsRequired',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 1,
		description:
			'How many different approvers must approve. One decline by an approver declines the request.',
		displayOptions: approval,
	},
	{
		displayName: 'Approve Reaction',
		name: 'approveReaction',
		type: 'string',
		default: '+1',
		description: 'The reaction name that approves (several: separated by commas)',
		displayOptions: { show: { responseType: ['approvalByReaction'] } },
	},
	{
		displayName: 'Decline Reaction',
		name: 'declineReaction',
		type: 'string',
		default: '-1',
		description:
			'The reaction name that declines (several: separated by commas; empty: no decline)',
		displayOptions: { show: { responseType: ['approvalByReaction'] } },
	},
	{
		displayName: 'Approve Words',
		name: 'approveWords',
		type: 'string',
		default: 'approve, approved',
		description:
			'Words or phrases that approve, separated by commas. A reply approves only when it is one of them alone, any case, punctuation and emoji aside (not a no sign such as 👎 or ❌): "Approved!" approves; "approve?", "I approve", "don\'t approve" and "approve_later" do not. Quoted lines (> …) are ignored.',
		displayOptions: { show: { responseType: ['approvalByKeyword'] } },
	},
	{
		displayName: 'Decline Words',
		name: 'declineWords',
		type: 'string',
		default: 'decline, declined',
		description:
			'Words or phrases that decline, separated by commas: a reply declines when it holds one as whole words ("Declined, too risky"), unless negated ("not declined") or asked ("decline?"). A reply with an approve word too (not negated or asked) decides nothing. An unclear reply (a keyword negated, asked or beside its opposite) takes back its sender\'s earlier vote. Empty: no decline.',
		displayOptions: { show: { responseType: ['approvalByKeyword'] } },
	},
];

export interface ApprovalWait {
	/** The output once decided, else undefined. */
	check(): Promise<IDataObject | undefined>;
	/** A check's failure told in the approval's terms, when it has some. */
	explain(error: unknown): NodeOperationError | undefined;
	/** The output when the wait timed out: what was seen so far, approved null. */
	timedOut(): IDataObject;
}

export function approvalWait(
	context: IExecuteFunctions,
	rules: ApprovalRules,
	sent: ListedMessage,
	own: string[],
	watcher: ReplyWatcher,
	checkOptions: RequestOptions,
): ApprovalWait {
	let state: ApprovalState = { approvedBy: [], declinedBy: [] };
	const tally = new KeywordTally(rules, own);
	const read = async (): Promise<ApprovalState> => {
		if (rules.mode === 'keyword') {
			tally.add(await watcher.checkAll());
			return tally.state;
		}
		// The reactions are read off the sent message itself: one request per check.
		const message = await messagingApiRequest.call(
			context,
			{ method: 'GET', path: ['messages', sent.id] },
			{ ...checkOptions, expect: 'record' },
		);
		return stateFromReactions(message.reactions, rules, own);
	};
	return {
		async check() {
			state = await read();
			const outcome = decide(state, rules.required);
			if (!outcome) return undefined;
			return {
				sent: sent as IDataObject,
				...outcome,
				respondedAt: new Date().toISOString(),
				timedOut: false,
			};
		},
		explain(error) {
			if (rules.mode !== 'reaction' || (error as { httpCode?: unknown }).httpCode !== '404')
				return undefined;
			const itemIndex = checkOptions.itemIndex ?? 0;
			return new NodeOperationError(
				context.getNode(),
				`The request message ${sent.id} was deleted while waiting for approval${itemSuffix(context, itemIndex)}`,
				{ itemIndex },
			);
		},
		timedOut: () => ({
			sent: sent as IDataObject,
			approved: null,
			...state,
			respondedAt: null,
			timedOut: true,
		}),
	};
}
