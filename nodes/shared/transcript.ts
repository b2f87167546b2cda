/**
 * A conversation as one transcript for a reader with a budget (an AI model's context, a summary):
 * oldest first, one line per message, speakers named (the account as "me"), times in ISO 8601,
 * reactions and attachments summarised. The newest messages are kept whole; older ones that do not fit
 * the character budget are left out, and the header says how many. Pure.
 */
import { cutText, indentLines, oneLine } from './lines';
import type { SimpleMessage } from './simplify/records';

export interface Transcript {
	transcript: string;
	/** Messages in the transcript. */
	included: number;
	/** Older messages left out for the character budget. */
	omitted: number;
	/** Whether the newest message alone was longer than the budget and was cut. */
	truncated: boolean;
}

/**
 * Who wrote a message: `me` for the account, anyone else by their username (else id) on one line. A
 * contact chooses their username, so one that reads as the account or holds the `: ` ending a speaker
 * is written in double quotes.
 */
export function speakerOf(message: SimpleMessage): string {
	if (message.from_me === true) return 'me';
	const name = oneLine(message.from ?? '') || oneLine(message.from_id ?? '') || 'unknown';
	const misleading = /^me$/i.test(name) || /:( |$)/.test(name) || name.startsWith('"');
	return misleading ? JSON.stringify(name) : name;
}

/** A message's line: `[time] speaker: text (edited) [reactions: …] [attachments: …]`. */
export function transcriptLine(message: SimpleMessage): string {
	// Continuation lines are indented, so every message still starts a line with its time.
	const text = indentLines(message.text, '  ');
	let line = `[${message.sent_at ?? 'unknown time'}] ${speakerOf(message)}: ${text}`;
	if (message.edited_at) line += ' (edited)';
	const reactions = Object.entries(message.reacted_by).map(
		([name, who]) => `${oneLine(name)} ×${who.length} (${who.map(oneLine).join(', ')})`,
	);
	if (reactions.length > 0) line += ` [reactions: ${reactions.join('; ')}]`;
	const files = message.attachments.map((a) => {
		const type = oneLine(a.type ?? '');
		return `${oneLine(a.name ?? '') || 'unnamed'}${type ? ` (${type})` : ''}`;
	});
	if (files.length > 0) line += ` [attachments: ${files.join(', ')}]`;
	return line;
}

/** Messages by time sent, oldest first; ties keep their order. */
export function oldestFirst(messages: SimpleMessage[]): SimpleMessage[] {
	const time = (m: SimpleMessage) => (m.sent_at === null ? -Infinity : Date.parse(m.sent_at));
	return messages
		.map((message, index) => ({ message, index }))
		.sort((a, b) => time(a.message) - time(b.message) || a.index - b.index)
		.map(({ message }) => message);
}

/**
 * The transcript of `messages` (any order) within `maxCharacters`, the header line included.
 * `earlierNotRead` counts older messages known to exist but not read (beyond Messages or Since).
 */
export function buildTranscript(
	messages: SimpleMessage[],
	options: { header: string; maxCharacters: number },
): Transcript {
	const lines = oldestFirst(messages).map(transcriptLine);
	const header = oneLine(options.header);
	const kept: string[] = [];
	let size = 0;
	let truncated = false;
	// The header is written last but its room is kept: it may grow by the count of left-out messages.
	const headerRoom = header.length + 110;
	for (let i = lines.length - 1; i >= 0; i--) {
		const room = options.maxCharacters - headerRoom - size - (kept.length > 0 ? 1 : 0);
		if (lines[i].length <= room) {
			kept.unshift(lines[i]);
			size += lines[i].length + (kept.length > 1 ? 1 : 0);
			continue;
		}
		if (kept.length === 0) {
			// The newest message alone is over budget: it is cut (between whole characters) rather than dropped.
			kept.unshift(`${cutText(lines[i], room - 1)}…`);
			truncated = true;
		}
		break;
	}
	const omitted = lines.length - kept.length;
	const note =
		omitted > 0
			? ` ${omitted} older message${omitted === 1 ? '' : 's'} left out to stay within ${options.maxCharacters} characters.`
			: '';
	const cut = truncated ? ' The newest message was cut to fit.' : '';
	return {
		transcript: [`${header}${note}${cut}`, ...kept].join('\n'),
		included: kept.length,
		omitted,
		truncated,
	};
}
