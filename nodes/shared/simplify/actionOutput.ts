/** Simplify on the Messaging node's output: each item's records as its operation's kind (records.ts). */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { idText, senderOf } from '../ids';
import type { TimestampUnitSetting } from '../timestamps';
import {
	otherContactOf,
	simplifyConversation,
	simplifyMessage,
	simplifyReply,
	withoutEmpty,
	type SimplifyContext,
} from './records';

/** What an operation returns, as Simplify reads it: a message (one sent by the account), a conversation, a reply wait. */
export type SimplifyAs = 'message' | 'sentMessage' | 'conversation' | 'reply';

/** What the Messaging node's run tells Simplify: the conversations it has read, by id. */
export interface RunConversations {
	conversations: Map<string, IDataObject>;
}

/** Whether the item asks for Simplify (absent on operations without the toggle). */
export function wantsSimplify(context: IExecuteFunctions, itemIndex: number): boolean {
	return context.getNodeParameter('simplify', itemIndex, false) === true;
}

/** The records of one item, simplified as the operation's output kind; `compact` (an AI tool's) leaves out empty fields. */
export function simplifyRecords(
	records: IDataObject[],
	as: SimplifyAs,
	run: RunConversations,
	unit: TimestampUnitSetting,
	own: string[],
	compact = false,
): IDataObject[] {
	const otherContacts = new Map<string, string>();
	for (const [id, conversation] of run.conversations) {
		const other = otherContactOf(conversation);
		if (other !== undefined) otherContacts.set(id, other);
	}
	const context: SimplifyContext = { unit, own, otherContacts };
	const simplified = records.map((record) => {
		if (as === 'conversation') return simplifyConversation(record, context) as IDataObject;
		if (as === 'reply') return simplifyReply(record, context) as IDataObject;
		if (as === 'sentMessage') {
			// The account sent it: its sender is "me".
			const { id, username } = senderOf(record);
			const sentBy = [id, username].filter((w): w is string => w !== undefined);
			const message = simplifyMessage(record, {
				...context,
				own: [...own, ...sentBy],
			}) as IDataObject;
			// Skip If Already Sent's mark and a split text's parts survive Simplify: workflows read them.
			if (record.alreadySent === true) message.alreadySent = true;
			if (Array.isArray(record.parts)) message.parts = record.parts;
			return message;
		}
		return simplifyMessage(record, context) as IDataObject;
	});
	if (!compact) return simplified;
	return simplified.map((record) => {
		const out = withoutEmpty(record) as IDataObject;
		for (const key of ['sent', 'reply'] as const) {
			const nested = out[key];
			if (nested && typeof nested === 'object')
				out[key] = withoutEmpty(nested as IDataObject) as IDataObject;
		}
		return out;
	});
}

/** The account's contact id or username from the credential, when the user gave it. */
export function ownFromSetting(setting: unknown): string[] {
	const own = idText(typeof setting === 'string' ? setting.trim() : setting);
	return own === undefined ? [] : [own];
}
