/** Text Format and Split Long Text: the options that make a text (an AI model's, say) fit a chat. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { plainTextFromMarkdown, splitText } from '../../shared/chatText';
import { inputError } from '../../shared/inputError';

export const textFormatOption: INodeProperties = {
	displayName: 'Text Format',
	name: 'textFormat',
	type: 'options',
	options: [
		{ name: 'As Is', value: 'asIs', description: 'Send the text exactly as given' },
		{
			name: 'Plain Text From Markdown',
			value: 'plainFromMarkdown',
			description:
				'Remove Markdown marks (headings, **emphasis**, code fences); links become "text (URL)", bullets "•"; code and quotes are kept as written',
		},
	],
	default: 'asIs',
	description: 'How the text is sent: as given, or Markdown (an AI model’s answer) as plain text',
};

export const SPLIT_DEFAULT = 4000;

export const splitLongTextOption: INodeProperties = {
	displayName: 'Split Long Text At (Characters)',
	name: 'splitAt',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: SPLIT_DEFAULT,
	description:
		'A longer text is sent as several messages, in order, each at most this long (UTF-16 units, as most services count): cut after a paragraph, else a sentence, a line or a word, and mid-word only when none is in the last half. The output names every part’s ID in parts.',
};

/** The text to send, in the chosen format. */
export function formattedText(context: IExecuteFunctions, itemIndex: number, text: string): string {
	const format = context.getNodeParameter('options.textFormat', itemIndex, 'asIs');
	return format === 'plainFromMarkdown' ? plainTextFromMarkdown(text) : text;
}

/** The messages to send for a text: one, or its parts when Split Long Text is set. */
export function messageParts(
	context: IExecuteFunctions,
	itemIndex: number,
	text: string,
): string[] {
	const splitAt = context.getNodeParameter('options.splitAt', itemIndex, null) as unknown;
	if (splitAt === undefined || splitAt === null) return [text];
	if (typeof splitAt !== 'number' || !Number.isInteger(splitAt) || splitAt < 1)
		throw inputError(
			context,
			itemIndex,
			'Split Long Text At (Characters)',
			`must be a whole number of at least 1 (got ${JSON.stringify(splitAt)})`,
		);
	return splitText(text, splitAt);
}
