/** Download Attachments on the Messaging node's reads: each message's attachments as binary fields. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RequestOptions } from '../transport';
import { downloadMessageAttachments, type DownloadSettings } from './download';
import { maxBytes } from './encoding';
import { ItemsWithBinary } from './itemsWithBinary';

/** What the Messaging node's run gives a download: each item's request timeout. */
export interface RunTimeouts {
	requestOptions(itemIndex: number): RequestOptions;
}

/** The Download Attachments options of the item, or undefined when it is off. */
export function readDownloadSettings(
	context: IExecuteFunctions,
	itemIndex: number,
	run: RunTimeouts,
): DownloadSettings | undefined {
	if (context.getNodeParameter('options.downloadAttachments', itemIndex, false) !== true)
		return undefined;
	return {
		urlField: String(context.getNodeParameter('options.attachmentUrlField', itemIndex, '')).trim(),
		limit: maxBytes(context.getNodeParameter('options.maxAttachmentSize', itemIndex, 25)),
		timeoutMs: run.requestOptions(itemIndex).timeoutMs ?? 30_000,
		allowPrivateAddresses:
			context.getNodeParameter('options.allowPrivateAddresses', itemIndex, false) === true,
	};
}

/** The records as items, each with its message's attachments downloaded when the option is on. */
export async function withDownloadedAttachments(
	context: IExecuteFunctions,
	itemIndex: number,
	run: RunTimeouts,
	records: IDataObject | IDataObject[],
): Promise<IDataObject | IDataObject[] | ItemsWithBinary> {
	const settings = readDownloadSettings(context, itemIndex, run);
	if (!settings) return records;
	const items: ItemsWithBinary['items'] = [];
	for (const json of Array.isArray(records) ? records : [records]) {
		const binary = await downloadMessageAttachments(context, json, settings, itemIndex);
		items.push(Object.keys(binary).length > 0 ? { json, binary } : { json });
	}
	return new ItemsWithBinary(items);
}

/** Send and Wait for Reply: the reply's attachments as binary fields of the one output item. */
export async function withReplyAttachments(
	context: IExecuteFunctions,
	itemIndex: number,
	run: RunTimeouts,
	result: IDataObject & { reply: IDataObject },
): Promise<IDataObject | ItemsWithBinary> {
	const settings = readDownloadSettings(context, itemIndex, run);
	if (!settings) return result;
	const binary = await downloadMessageAttachments(context, result.reply, settings, itemIndex);
	return new ItemsWithBinary([
		Object.keys(binary).length > 0 ? { json: result, binary } : { json: result },
	]);
}
