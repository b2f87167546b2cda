/**
 * The request message of the human-review tool n8n derives from Send and Wait for Response. n8n's default
 * text renders the tool's arguments with `{{ $tool.parameters }}`, which reads "[object Object]": the
 * reviewer could not see what they approve. Here the arguments are written one per line instead, in
 * whatever text the user kept around them.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { indentLines } from '../../shared/lines';

const TOOL_PARAMETERS = /\{\{\s*\$tool\.parameters\s*\}\}/g;

/** Pure: the tool's arguments, one `- name: value` line each (text as is, other values as JSON). */
export function readableArguments(value: unknown): string {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
	}
	const lines = Object.entries(value as Record<string, unknown>).map(([name, v]) => {
		const text = typeof v === 'string' ? v : JSON.stringify(v);
		// Indented after every line break, so an argument cannot show a line that reads as another one.
		return `- ${name}: ${indentLines(String(text), '  ')}`;
	});
	return lines.length > 0 ? lines.join('\n') : '(no arguments)';
}

/** The review request's text when the node runs as a human-review tool and its Message shows `$tool.parameters`. */
export function reviewRequestText(
	context: IExecuteFunctions,
	itemIndex: number,
): string | undefined {
	const raw = context.getNode().parameters.message;
	if (!context.getNode().type.endsWith('HitlTool') || typeof raw !== 'string') return undefined;
	if (!raw.startsWith('=') || raw.search(TOOL_PARAMETERS) === -1) return undefined;
	const marker = '\u0000tool-arguments\u0000';
	// evaluateExpression adds the leading "=" of an expression itself.
	const text = context.evaluateExpression(raw.slice(1).replace(TOOL_PARAMETERS, marker), itemIndex);
	const args = context.evaluateExpression('{{ $tool.parameters }}', itemIndex);
	return String(text).split(marker).join(readableArguments(args));
}
