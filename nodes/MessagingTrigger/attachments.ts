/**
 * Download Attachments on the trigger: each message's files are fetched before its delivery is written
 * and emitted. A file that cannot be fetched never holds the message back: the message is delivered
 * with `attachmentErrors` (one sentence per file), the files that could be fetched as binary fields.
 */
import type { IBinaryKeyData, IDataObject, IPollFunctions, ITriggerFunctions } from 'n8n-workflow';

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
