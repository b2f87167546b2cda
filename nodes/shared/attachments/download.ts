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
	type DownloadContext,
	type DownloadSettings,
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
	const { binary, failures } = await downloadEach(context, message, settings, true);
	if (failures.length > 0) {
		throw new NodeOperationError(
			context.getNode(),
			`${failures[0]}${itemIndex === undefined ? '' : ` [item ${itemIndex}]`}`,
			{
				itemIndex,
				description:
					'Download Attachments fetches each attachment from its URL field (option Attachment URL Field) or its inline base64 data.',
			},
		);
	}
	return binary;
}

/**
 * Every attachment that can be downloaded, and a sentence for each that cannot (for the trigger, which
 * delivers the message whatever happens to its files).
 */
export async function downloadMessageAttachmentsRecordingFailures(
	context: DownloadContext,
	message: IDataObject,
	settings: DownloadSettings,
): Promise<{ binary: IBinaryKeyData; failures: string[] }> {
	return await downloadEach(context, message, settings, false);
}

async function downloadEach(
	context: DownloadContext,
	message: IDataObject,
	settings: DownloadSettings,
	stopAtFirstFailure: boolean,
): Promise<{ binary: IBinaryKeyData; failures: string[] }> {
	const attachments = Array.isArray(message.attachments) ? message.attachments : [];
	const binary: IBinaryKeyData = {};
	const failures: string[] = [];
	for (const [index, attachment] of attachments.entries()) {
		try {
			binary[binaryFieldName(settings.prefix ?? BINARY_PREFIX, index)] = await downloadOne(
				context,
				attachment,
				settings,
			);
		} catch (error) {
			const name = attachmentName(attachment);
			failures.push(
				`Attachment ${index} of message ${String(message.id ?? '(no id)')}${name ? ` (${name})` : ''} could not be downloaded: ${(error as Error).message}`,
			);
			if (stopAtFirstFailure) break;
		}
	}
	return { binary, failures };
}

async function downloadOne(
	context: DownloadContext,
	attachment: unknown,
	settings: DownloadSettings,
): Promise<IBinaryData> {
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
		const answer = await fetchWithRetries(context, target, settings, {
			id: '',
			name: 'Messaging API',
			type: CREDENTIAL_TYPE,
			data: credentials,
		});
		if ('location' in answer) {
			if (hop >= MAX_REDIRECTS)
				throw new DownloadError(`more than ${MAX_REDIRECTS} redirects`, false);
			target = downloadTarget(answer.location, baseUrl, target.url);
			continue;
		}
		const type = mimeType ?? answer.contentType?.split(';')[0].trim();
		return await context.helpers.prepareBinaryData(
			answer.bytes,
			fileName ?? fileNameOf(target.url),
			type || undefined,
		);
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
