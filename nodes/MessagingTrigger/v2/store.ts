/**
 * Version 2's stored data, its one reader and writer: the watermark (`state`) and the delivery ledger
 * (`deliveries`) in the node's static data, which n8n saves when the trigger emits. A ledger an earlier
 * build wrote is read in today's shape (ledgerV1.ts) and written in it at the next change.
 */
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import { isTriggerState, type TriggerState } from '../triggerState';
import { emptyLedger, isLedger, type Ledger } from './deliveryLedger';
import { fromLedgerV1, isLedgerV1 } from './ledgerV1';

export class TriggerStore {
	constructor(private readonly context: ITriggerFunctions) {}

	private get data(): IDataObject {
		return this.context.getWorkflowStaticData('node');
	}

	/** The watermark; null before the first check has saved where the stream stands. */
	state(): TriggerState | null {
		const stored = this.data.state;
		return isTriggerState(stored) ? stored : null;
	}

	ledger(): Ledger {
		const stored = this.data.deliveries;
		if (isLedger(stored)) return stored;
		return isLedgerV1(stored) ? fromLedgerV1(stored) : emptyLedger();
	}

	writeState(state: TriggerState): void {
		this.data.state = state;
	}

	writeLedger(ledger: Ledger): void {
		this.data.deliveries = ledger;
	}
}
