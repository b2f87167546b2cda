/**
 * A message's attachments as n8n binary data: each one fetched from its URL (the access token only on
 * the Base URL's own origin, redirects followed by hand so the token never follows one elsewhere) or
 * decoded from inline base64, within the size limit and the timeout, then stored through n8n's helpers.
 */
import type { IBinaryData, IBinaryKeyData, IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE, credentialData } from '../transport/credentials';
import { normalizeBaseUrl } from '../transport/url';
import { checkedTarget } from './addressCheck';
import {
	attachmentMimeType,
	attachmentName,
	attachmentSource,
	binaryFieldName,
	downloadTarget,
	isBase64,
} from './encoding';
import {
	checkSize,
	DownloadError,
	fetchWithRetries,
	forOneFile,
	type DownloadContext,
	type DownloadSettings,
	type Keep,
} from './fetchFile';

export { DownloadError, type DownloadContext, type DownloadSettings } from './fetchFile';

export const BINARY_PREFIX = 'attachment_';

/** Redirects followed for one file (each hop decides anew whether the token goes). */
const MAX_REDIRECTS = 5;

/** Every attachment of one message as binary fields, in order; throws naming the message and the attachment. */
export async function downloadMessageAttachments(
	context: DownloadContext,
	message: IDataObject,
	settings: DownloadSettings,
	itemIndex?: number,
): Promise<IBinaryKeyData> {
	const attachments = Array.isArray(message.attachments) ? message.attachments : [];
	const binary: IBinaryKeyData = {};
	for (const [index, attachment] of attachments.entries()) {
		try {
			binary[binaryFieldName(settings.prefix ?? BINARY_PREFIX, index)] = await downloadAttachment(
				context,
				attachment,
				settings,
			);
		} catch (error) {
			const why = failureText(message, index, attachment, (error as Error).message);
			const text = `${why}${itemIndex === undefined ? '' : ` [item ${itemIndex}]`}`;
			const failure = new NodeOperationError(context.getNode(), text, {
				itemIndex,
				description:
					'Download Attachments fetches each attachment from its URL field (option Attachment URL Field) or its inline base64 data.',
			});
			// n8n swaps a message holding an error code (EPERM, ECONNRESET…, even in a file name) for its own.
			failure.message = text;
			throw failure;
		}
	}
	return binary;
}

/** "Attachment 1 of message msg_42 (report.pdf) could not be downloaded: <why>". */
export function failureText(
	message: IDataObject,
	index: number,
	attachment: unknown,
	why: string,
): string {
	const name = attachmentName(attachment);
	return `Attachment ${index} of message ${String(message.id ?? '(no id)')}${name ? ` (${name})` : ''} could not be downloaded: ${why}`;
}

/** One attachment as binary data, within its own timeout (and the batch's deadline, if any). */
export async function downloadAttachment(
	context: DownloadContext,
	attachment: unknown,
	settings: DownloadSettings,
): Promise<IBinaryData> {
	settings = forOneFile(settings);
	const source = attachmentSource(attachment, settings.urlField);
	const fileName = attachmentName(attachment);
	const mimeType = attachmentMimeType(attachment);
	if ('problem' in source) throw new DownloadError(source.problem, false);
	if ('data' in source) {
		if (!isBase64(source.data)) throw new DownloadError(`its ${source.field} is not base64`, false);
		const bytes = Buffer.from(source.data, 'base64');
		checkSize(bytes.length, settings.limit);
		return await context.helpers.prepareBinaryData(bytes, fileName, mimeType);
	}
	const credentials = await credentialData.call(context);
	const baseUrl = normalizeBaseUrl(String(credentials.baseUrl ?? ''));
	let target = downloadTarget(source.url, baseUrl);
	for (let hop = 0; ; hop++) {
		target = await checkedTarget(context, target, settings);
		if ('problem' in target) {
			const what = hop === 0 ? `its ${source.field}` : 'it redirects to an address that';
			throw new DownloadError(`${what} ${target.problem}`, false);
		}
		const name = fileName ?? fileNameOf(target.url);
		const typeOf = (contentType?: string) =>
			mimeType ?? (contentType?.split(';')[0].trim() || undefined);
		const keep: Keep = {
			streams: (contentType) => typeOf(contentType) !== undefined,
			save: async (body, contentType) =>
				await context.helpers.prepareBinaryData(body, name, typeOf(contentType)),
		};
		const answer = await fetchWithRetries(
			context,
			target,
			settings,
			{ id: '', name: 'Messaging API', type: CREDENTIAL_TYPE, data: credentials },
			keep,
		);
		if ('location' in answer) {
			if (hop >= MAX_REDIRECTS)
				throw new DownloadError(`more than ${MAX_REDIRECTS} redirects`, false);
			target = downloadTarget(answer.location, baseUrl, target.url);
			continue;
		}
		if ('binary' in answer) return answer.binary;
		// Type unknown: n8n tells it from the bytes, which it reads only from a buffer.
		return await context.helpers.prepareBinaryData(answer.bytes, name, typeOf(answer.contentType));
	}
}

function fileNameOf(url: string): string | undefined {
	const last = new URL(url).pathname.split('/').pop();
	if (!last) return undefined;
	try {
		return decodeURIComponent(last);
	} catch {
		return last;
	}
}
