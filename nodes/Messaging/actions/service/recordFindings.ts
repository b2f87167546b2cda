/** Pure: what the listed records show (timestamp unit, ids, reactions, attachment URLs) and what the node does about it. */
import type { IDataObject } from 'n8n-workflow';

import { hostProblem } from '../../../shared/attachments/addressPolicy';
import {
	attachmentSource,
	describeUrl,
	downloadTarget,
} from '../../../shared/attachments/encoding';
import { cutText } from '../../../shared/lines';
import {
	TIMESTAMP_FIELDS,
	timestampValue,
	unitOfTimestamp,
	type TimestampUnit,
	type TimestampUnitSetting,
} from '../../../shared/timestamps';
import type { Finding } from './observations';

/** A value as evidence shows it: JSON, cut short. */
export function shown(value: unknown, max = 80): string {
	const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
	return text.length > max ? `${cutText(text, max)}…` : text;
}

const WRITES = 'the dates the node sends (such as Archived At)';

export function timestampUnitFinding(
	records: IDataObject[],
	setting: TimestampUnitSetting,
): Finding {
	const units = new Set<TimestampUnit>();
	let count = 0;
	let asText = 0;
	let example: string | undefined;
	for (const record of records) {
		for (const field of TIMESTAMP_FIELDS) {
			const value = timestampValue(record[field]);
			if (value === undefined) continue;
			units.add(unitOfTimestamp(value));
			count++;
			if (typeof record[field] === 'string') asText++;
			example ??= `${field} ${shown(record[field])} on ${String(record.id)}`;
		}
	}
	const detected = units.size === 1 ? [...units][0] : units.size > 1 ? 'mixed' : undefined;
	const text = asText > 0 ? `, ${asText} of them as numeric text (read like numbers)` : '';
	const evidence = example
		? `${example}; ${count} timestamps, ${detected === 'mixed' ? 'in seconds and in milliseconds' : `all in ${detected}`}${text}`
		: 'No timestamp in the records listed';
	const fixed = setting === 'auto' ? undefined : setting;
	if (detected === undefined) {
		return fixed
			? {
					result: 'unknown',
					status: 'unknown',
					evidence,
					nodeWill: `Uses the credential’s Timestamp Unit (${fixed}); nothing listed to check it against.`,
				}
			: {
					result: 'unknown',
					status: 'attention',
					evidence,
					nodeWill:
						'With Timestamp Unit on Auto, an operation that writes a date fails until the service lists a record: set the unit on the credential.',
				};
	}
	if (detected === 'mixed') {
		return {
			result: 'mixed',
			status: 'attention',
			evidence,
			nodeWill: `Reads each timestamp by its size, so times show right; ${WRITES} use ${fixed ? `the credential’s ${fixed}` : 'the unit of the first record listed'}: set the credential’s Timestamp Unit to the one the service expects.`,
		};
	}
	if (fixed && fixed !== detected) {
		return {
			result: detected,
			status: 'attention',
			evidence,
			nodeWill: `The credential’s Timestamp Unit says ${fixed}: ${WRITES} are 1,000 times off, and so are the times it shows. Set it to Auto or ${detected}.`,
		};
	}
	return {
		result: detected,
		status: detected === 'seconds' ? 'fine' : 'adapted',
		evidence,
		nodeWill: fixed
			? `Uses the credential’s Timestamp Unit (${fixed}), which matches.`
			: `Reads each timestamp by its size (below 10^11: seconds); ${WRITES} go in ${detected}, learnt once per run from the first record listed.`,
	};
}

/** Ids as text (the spec's form), numbers, or both. */
export function idsFinding(records: IDataObject[]): Finding {
	const kinds = new Set(records.map((record) => typeof record.id));
	const example = records.find((record) => typeof record.id === 'number')?.id ?? records[0]?.id;
	if (records.length === 0) {
		return {
			result: 'unknown',
			status: 'unknown',
			evidence: 'No record listed',
			nodeWill: 'Ids are sent back as the service wrote them, each as one path segment.',
		};
	}
	const numbers = kinds.has('number');
	return {
		result: numbers ? (kinds.size > 1 ? 'text and numbers' : 'numbers') : 'text',
		status: numbers ? 'adapted' : 'fine',
		evidence: `${records.length} records, e.g. id ${shown(example)}`,
		nodeWill: numbers
			? 'Number ids are sent back as their digits (in paths and starting_after) and output as the service sent them.'
			: 'Ids are sent back as the service wrote them, each as one percent-encoded path segment.',
	};
}

/** Reactions as an array of `{ name: reactors }` objects (the spec's form), or one such object. */
export function reactionsFinding(messages: IDataObject[]): Finding {
	const withField = messages.filter((message) => 'reactions' in message);
	const filled = withField.find((message) => {
		const value = message.reactions;
		return Array.isArray(value) ? value.length > 0 : !!value && Object.keys(value).length > 0;
	});
	const sample = filled ?? withField[0];
	if (!sample) {
		return {
			result: 'unknown',
			status: 'unknown',
			evidence: messages.length === 0 ? 'No message listed' : 'No message listed has reactions',
			nodeWill:
				'Reads reactions as an array of {name: reactors} objects or as one such object, whichever comes.',
		};
	}
	const value = sample.reactions;
	const evidence = `message ${String(sample.id)}: reactions ${shown(value)}${filled ? '' : ' (no message listed has any)'}`;
	const write =
		'Add and Remove Reaction merge them into one set and write it back whole, as reactions[<name>][]=<reactor>.';
	if (Array.isArray(value)) {
		return { result: 'array of objects', status: 'fine', evidence, nodeWill: write };
	}
	if (value && typeof value === 'object') {
		return {
			result: 'one object',
			status: 'adapted',
			evidence,
			nodeWill: `Reads the one object like the array form; ${write}`,
		};
	}
	return {
		result: 'unreadable',
		status: 'attention',
		evidence,
		nodeWill: 'Reads no reactions from this value; Add and Remove Reaction would start from none.',
	};
}

const ABSOLUTE_OR_PATH = /^(https?:\/\/|\/)\S+$/i;

/** Where the attachments listed keep their file: which field, on which origin, or inline. */
export function attachmentUrlsFinding(messages: IDataObject[], baseUrl: string): Finding {
	const attachments = messages.flatMap((message) =>
		(Array.isArray(message.attachments) ? (message.attachments as unknown[]) : []).map(
			(attachment, index) => ({ message: String(message.id), index, attachment }),
		),
	);
	const first = attachments[0];
	if (!first) {
		return {
			result: 'none seen',
			status: 'unknown',
			evidence: `No attachment on the ${messages.length} messages listed`,
			nodeWill:
				'Download Attachments looks for a URL in url, download_url or href, else inline base64 in data or content; send a message with a file and run the check again to see which.',
		};
	}
	const count = `${attachments.length} attachment${attachments.length === 1 ? '' : 's'} listed`;
	const at = `${count}; ${first.message} attachments[${first.index}]`;
	const source = attachmentSource(first.attachment, '');
	if ('data' in source) {
		return {
			result: `inline base64 in ${source.field}`,
			status: 'adapted',
			evidence: `${at}.${source.field} holds the file’s base64`,
			nodeWill: 'Download Attachments decodes the inline data; nothing is fetched.',
		};
	}
	if ('url' in source) {
		const target = downloadTarget(source.url, baseUrl);
		const evidence = `${at}.${source.field} = ${'url' in target ? describeUrl(target.url) : shown(source.url)}`;
		if ('problem' in target) {
			return {
				result: `unusable URL in ${source.field}`,
				status: 'attention',
				evidence,
				nodeWill: `Download Attachments refuses it: the URL ${target.problem}.`,
			};
		}
		if (target.withToken) {
			return {
				result: `${source.field}, on the Base URL’s origin`,
				status: 'fine',
				evidence,
				nodeWill: `Download Attachments fetches ${source.field} with the access token (the Base URL’s own origin).`,
			};
		}
		const internal = hostProblem(new URL(target.url).hostname);
		return {
			result: `${source.field}, on another origin`,
			status: internal ? 'attention' : 'adapted',
			evidence,
			nodeWill: internal
				? `Download Attachments refuses it unless Allow Private Addresses is on: its host is ${internal}. The access token is never sent there.`
				: `Download Attachments fetches ${source.field} without the access token (another origin), so the URL must work without it.`,
		};
	}
	const record = (first.attachment ?? {}) as IDataObject;
	const field = Object.keys(record).find(
		(key) => typeof record[key] === 'string' && ABSOLUTE_OR_PATH.test(String(record[key])),
	);
	return {
		result: field ? `URL in ${field}` : 'no URL',
		status: 'attention',
		evidence: `${at}: ${shown(first.attachment, 120)}`,
		nodeWill: field
			? `Download Attachments finds no URL in its default fields: set Options → Attachment URL Field to ${field}.`
			: 'Download Attachments cannot fetch these: they hold no URL and no inline data.',
	};
}
