/**
 * Download Attachments on the trigger: each message's files are fetched before its delivery is written
 * and emitted. A file that cannot be fetched never holds the message back: the message is delivered
 * with `attachmentErrors` (one sentence per file), the files that could be fetched as binary fields.
 * The downloads of one check share a time budget within its interval and run a few at a time.
 */
import type {
	IBinaryKeyData,
	IDataObject,
	INodeExecutionData,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';

import { BINARY_PREFIX, downloadAttachment, failureText, type DownloadSettings } from './download';
import { binaryFieldName, maxBytes } from './encoding';
import type { ListedMessage } from '../listedMessage';

interface Downloaded {
	binary: IBinaryKeyData;
	failures: string[];
}

/** By message object: what messageItems adds to its item. */
const downloaded = new WeakMap<object, Downloaded>();

/** Files fetched at once: a few, so that one slow file holds no other back and no host gets a flood. */
export const PARALLEL_DOWNLOADS = 3;

/** The budget is this share of the interval, which counts up to MAX_BUDGET_BASE_MS. */
const BUDGET_SHARE = 0.75;
const MAX_BUDGET_BASE_MS = 120_000;

/** Version 1 polls at most once a minute (n8n's shortest Poll Times), as Fetch Test Event waits. */
const ONE_MINUTE_MS = 60_000;

export interface DownloadBudget {
	/** Epoch ms when every download of the check ends. */
	deadline: number;
	ms: number;
}

/**
 * Three quarters of the interval (of two minutes at most), in whole seconds, at least one: the check
 * ends with time to spare before the next one is due, so a file can never hold back the next listing.
 */
export function downloadBudget(intervalMs: number, now = Date.now()): DownloadBudget {
	const share = Math.min(intervalMs, MAX_BUDGET_BASE_MS) * BUDGET_SHARE;
	const ms = Math.max(1_000, Math.floor(share / 1_000) * 1_000);
	return { deadline: now + ms, ms };
}

/**
 * Downloads the attachments of the messages when the option is on: the files in order, a few at a
 * time, each ending by the budget's deadline; a file not started by then is recorded as such.
 */
export async function downloadTriggerAttachments(
	context: IPollFunctions | ITriggerFunctions,
	messages: ListedMessage[],
	budget: DownloadBudget = downloadBudget(ONE_MINUTE_MS),
): Promise<void> {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	if (options.downloadAttachments !== true) return;
	const seconds = budget.ms / 1000;
	const settings: DownloadSettings = {
		urlField: String(options.attachmentUrlField ?? '').trim(),
		limit: maxBytes(options.maxAttachmentSize ?? 25),
		timeoutMs: budget.ms,
		deadline: budget.deadline,
		timeoutName: `the ${seconds} s a check gives its downloads`,
		allowPrivateAddresses: options.allowPrivateAddresses === true,
	};
	const files = messages
		.filter((message) => !downloaded.has(message))
		.flatMap((message) => {
			const result: Downloaded = { binary: {}, failures: [] };
			downloaded.set(message, result);
			const { attachments } = message as IDataObject;
			const list: unknown[] = Array.isArray(attachments) ? attachments : [];
			return list.map((attachment, index) => ({ message, attachment, index, result }));
		});
	const fetched = new Map<(typeof files)[number], IBinaryKeyData[string] | string>();
	await inTurn(files, PARALLEL_DOWNLOADS, async (file) => {
		const record = file.message as IDataObject;
		if (Date.now() >= budget.deadline) {
			const why = `it was not started: the ${seconds} s a check gives its downloads were used up`;
			fetched.set(file, failureText(record, file.index, file.attachment, why));
			return;
		}
		try {
			fetched.set(file, await downloadAttachment(context, file.attachment, settings));
		} catch (error) {
			const why = (error as Error).message;
			fetched.set(file, failureText(record, file.index, file.attachment, why));
		}
	});
	// In the attachments' order, whichever finished first.
	for (const file of files) {
		const outcome = fetched.get(file)!;
		if (typeof outcome === 'string') {
			file.result.failures.push(outcome);
			context.logger.warn(`Messaging Trigger: ${outcome}`);
		} else file.result.binary[binaryFieldName(BINARY_PREFIX, file.index)] = outcome;
	}
}

/** Runs `task` on each item in order, at most `parallel` at once. */
async function inTurn<T>(items: T[], parallel: number, task: (item: T) => Promise<void>) {
	let next = 0;
	const lane = async () => {
		while (next < items.length) await task(items[next++]);
	};
	await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, lane));
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
	messages: ListedMessage[],
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
