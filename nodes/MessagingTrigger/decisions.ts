/**
 * What a check decided to deliver, as data: each event's key (what the ledger records, and what a
 * restart reads again) and what its item is built from at emit (deliveryItems.ts). Keys stay data from
 * the plan to the ledger; their text (keyText) only names them: a delivery's id, logs and reports.
 */
import type { TriggerMessage } from './triggerState';

export interface EditedKey {
	kind: 'messageEdited';
	id: string;
	updatedAt: number | null;
}

export interface ReactionKey {
	kind: 'reactionAdded' | 'reactionRemoved';
	id: string;
	reaction: string;
	reactor: string;
}

export interface ConversationKey {
	kind: 'newConversation';
	id: string;
}

export interface BurstKey {
	kind: 'messageBurst';
	firstId: string;
	lastId: string;
}

/** New Message: the message's id, as every build has stored it. Any other event: what it names. */
export type DeliveryKey = string | EditedKey | ReactionKey | ConversationKey | BurstKey;

export type Decision =
	| { event: 'newMessage'; key: string; message: TriggerMessage }
	| {
			event: 'messageEdited';
			key: EditedKey;
			message: TriggerMessage;
			/** The text the previous check saw (unknown when read again after a restart). */
			before?: { message: string; truncated?: true };
			after: { message: unknown };
	  }
	| { event: 'reactionAdded' | 'reactionRemoved'; key: ReactionKey; message: TriggerMessage }
	| { event: 'newConversation'; key: ConversationKey; conversation: object }
	| { event: 'messageBurst'; key: BurstKey; messages: TriggerMessage[] };

/** The key as text: `<id>`, `edited:<id>@<updated_at>`, `reaction+:<id>:<name>:<reactor>` (`-` removed), `conversation:<id>`, `burst:<firstId>..<lastId>`. */
export function keyText(key: DeliveryKey): string {
	if (typeof key === 'string') return key;
	switch (key.kind) {
		case 'messageEdited':
			return `edited:${key.id}@${key.updatedAt}`;
		case 'reactionAdded':
		case 'reactionRemoved':
			return `reaction${key.kind === 'reactionAdded' ? '+' : '-'}:${key.id}:${key.reaction}:${key.reactor}`;
		case 'newConversation':
			return `conversation:${key.id}`;
		case 'messageBurst':
			return `burst:${key.firstId}..${key.lastId}`;
	}
}
