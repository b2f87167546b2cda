import type { IBinaryKeyData, IDataObject } from 'n8n-workflow';

/** An operation's output items that carry binary data (the router pairs each with its input item). */
export class ItemsWithBinary {
	constructor(readonly items: Array<{ json: IDataObject; binary?: IBinaryKeyData }>) {}
}
