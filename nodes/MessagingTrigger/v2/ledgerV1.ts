/**
 * The delivery ledger as builds before keys were data wrote it (version 1: `ids`, each key as text),
 * read into today's shape when the stored data is (store.ts). The only place a key is read from text.
 */
import type { DeliveryKey } from '../decisions';
import type { Delivery, Ledger } from './deliveryLedger';

interface DeliveryV1 extends Omit<Delivery, 'keys'> {
	ids: string[];
}

interface LedgerV1 {
	version: 1;
	inFlight: DeliveryV1[];
	redeliver: DeliveryV1[];
}

export function isLedgerV1(value: unknown): value is LedgerV1 {
	const ledger = value as LedgerV1 | undefined;
	return (
		!!ledger &&
		ledger.version === 1 &&
		Array.isArray(ledger.inFlight) &&
		Array.isArray(ledger.redeliver)
	);
}

/**
 * What a key written as text names: `edited:<id>@<updated_at>`, `reaction+:<id>:<name>:<reactor>` (`-`
 * removed), `conversation:<id>`, `burst:<firstId>..<lastId>`; any other text is a New Message's id.
 */
export function keyFromText(text: string): DeliveryKey {
	const edited = /^edited:(.*)@([^@]*)$/.exec(text);
	if (edited)
		return {
			kind: 'messageEdited',
			id: edited[1],
			updatedAt: edited[2] === 'null' ? null : Number(edited[2]),
		};
	const reaction = /^reaction([+-]):([^:]*):(.*):([^:]*)$/.exec(text);
	if (reaction)
		return {
			kind: reaction[1] === '+' ? 'reactionAdded' : 'reactionRemoved',
			id: reaction[2],
			reaction: reaction[3],
			reactor: reaction[4],
		};
	const conversation = /^conversation:(.*)$/.exec(text);
	if (conversation) return { kind: 'newConversation', id: conversation[1] };
	const burst = /^burst:(.*)\.\.(.*)$/.exec(text);
	if (burst) return { kind: 'messageBurst', firstId: burst[1], lastId: burst[2] };
	return text;
}

function fromV1({ ids, ...delivery }: DeliveryV1): Delivery {
	return { ...delivery, keys: ids.map(keyFromText) };
}

export function fromLedgerV1(ledger: LedgerV1): Ledger {
	return {
		version: 2,
		inFlight: ledger.inFlight.map(fromV1),
		redeliver: ledger.redeliver.map(fromV1),
	};
}
