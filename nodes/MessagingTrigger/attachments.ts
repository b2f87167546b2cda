/**
 * Download Attachments on the trigger: each message's files are fetched before its delivery is written
 * and emitted. A file that cannot be fetched never holds the message back: the message is delivered
 * with `attachmentErrors` (one sentence per file), the files that could be fetched as binary fields.
 */
import type {
	IBinaryKeyData,
	IDataObject,
	INodeExecutionData,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';

import { downloadMessageAttachmentsRecordingFailures } from '../shared/attachments/download';
import { maxBytes } from '../shared/attachments/encoding';
import { DEFAULT_TIMEOUT_MS } from '../shared/transport';
import type { TriggerMessage } from './pollState';

interface Downloaded {
	binary: IBinaryKeyData;
	failures: string[];
}

/** By message object: what messageItems adds to its item. */
const downloaded = new WeakMap<object, Downloaded>();

/** Downloads the attachments of the messages when the option is on (one message at a time, in order). */
export async function downloadTriggerAttachments(
	context: IPollFunctions | ITriggerFunctions,
	messages: TriggerMessage[],
): Promise<void> {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	if (options.downloadAttachments !== true) return;
	const settings = {
		urlField: String(options.attachmentUrlField ?? '').trim(),
		limit: maxBytes(options.maxAttachmentSize ?? 25),
		timeoutMs: DEFAULT_TIMEOUT_MS,
		allowPrivateAddresses: options.allowPrivateAddresses === true,
	};
	for (const message of messages) {
		if (downloaded.has(message)) continue;
		const result = await downloadMessageAttachmentsRecordingFailures(
			context,
			message as IDataObject,
			settings,
		);
		for (const failure of result.failures) context.logger.warn(`Messaging Trigger: ${failure}`);
		downloaded.set(message, result);
	}
}

/** The binary fields and recorded failures of a message's item, if its attachments were downloaded. */
export function attachmentOutput(message: object): {
	binary?: IBinaryKeyData;
	json: IDataObject;
} {
	const result = downloaded.get(message);
	if (!result) return { json: {} };
	return {
		...(Object.keys(result.binary).length > 0 ? { binary: result.binary } : {}),
		json: result.failures.length > 0 ? { attachmentErrors: result.failures } : {},
	};
}

/**
 * A planned delivery's items with its messages' downloaded files: the plan builds items before the
 * files are fetched. One message: every item (an event's items); one item per message: pairwise; a
 * grouped burst: all its files on its one item, numbered on.
 */
export function withAttachmentOutput(
	items: INodeExecutionData[],
	messages: TriggerMessage[],
): INodeExecutionData[] {
	const outputs = messages.map((message) => attachmentOutput(message));
	if (outputs.every((o) => !o.binary && Object.keys(o.json).length === 0)) return items;
	const add = (item: INodeExecutionData, files: ReturnType<typeof attachmentOutput>[]) => {
		const binary: IBinaryKeyData = {};
		const errors: unknown[] = [];
		for (const file of files) {
			for (const data of Object.values(file.binary ?? {}))
				binary[`attachment_${Object.keys(binary).length}`] = data;
			errors.push(...((file.json.attachmentErrors as unknown[] | undefined) ?? []));
		}
		return {
			...item,
			json: errors.length > 0 ? { ...item.json, attachmentErrors: errors } : item.json,
			...(Object.keys(binary).length > 0 ? { binary } : {}),
		};
	};
	if (messages.length === 1) return items.map((item) => add(item, outputs));
	if (items.length === messages.length) return items.map((item, n) => add(item, [outputs[n]]));
	return items.map((item, n) => (n === 0 ? add(item, outputs) : item));
}
