/**
 * Pure: the HTML pages the resume webhook answers with (the approval's confirmation, the Free Text and
 * Custom Form forms, "response recorded", and the refusals). Self-contained: no script, no external
 * resource, every value escaped. Only a person's click on a button (a POST) decides: a GET shows a page.
 */
import type { FormField } from './formFields';

/**
 * Sent with every page: a sandbox (no script, no same-origin access) that still allows the form's POST,
 * the policy n8n puts on its own form pages.
 */
export const PAGE_CSP =
	"sandbox allow-forms; default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'";

/** The form field that carries the Free Text answer. */
export const RESPONSE_FIELD = 'response';

export function escapeHtml(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f5f7;color:#1f2328;margin:0}
main{max-width:36rem;margin:3rem auto;background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:1.5rem 2rem}
h1{font-size:1.3rem;margin:0 0 .75rem}p{white-space:pre-wrap;line-height:1.45}
textarea,input,select{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;border:1px solid #afb8c1;border-radius:6px}
textarea{min-height:8rem}label{display:block;margin:1rem 0 .25rem;font-weight:600}
.choice{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.25rem 0}.choice input{width:auto}
button{margin-top:1rem;font:inherit;padding:.5rem 1.25rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer}
.error{color:#cf222e}`;

function page(title: string, body: string): string {
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

/** Without an action the form posts to the page's own address: the signed link, as the browser sees it
 * (behind a proxy too), so n8n checks the same signature on the answer. */
export interface FormPageOptions {
	title: string;
	description: string;
	buttonLabel: string;
	error?: string;
}

/** A page with one form that posts back to the signed link; `fieldsHtml` is already escaped. */
function formPage(options: FormPageOptions, fieldsHtml: string, multipart = false): string {
	const title = options.title.trim() || 'Your response';
	const description = options.description.trim();
	return page(
		title,
		`<h1>${escapeHtml(title)}</h1>
${description ? `<p>${escapeHtml(description)}</p>` : ''}
${options.error ? `<p class="error">${escapeHtml(options.error)}</p>` : ''}
<form method="post" accept-charset="utf-8"${multipart ? ' enctype="multipart/form-data"' : ''}>
${fieldsHtml}
<button type="submit">${escapeHtml(options.buttonLabel.trim() || 'Submit')}</button>
</form>`,
	);
}

export function responseFormPage(options: FormPageOptions): string {
	return formPage(
		options,
		`<label for="${RESPONSE_FIELD}">Response</label>
<textarea id="${RESPONSE_FIELD}" name="${RESPONSE_FIELD}" required></textarea>`,
	);
}

/** What the approval link shows: the request and one button whose POST (to this same signed link) decides. */
export interface ApprovalPageOptions {
	message: string;
	buttonLabel: string;
}

export function approvalPage(options: ApprovalPageOptions): string {
	const message = options.message.trim();
	return page(
		'Confirm your response',
		`<h1>Confirm your response</h1>
${message ? `<p>${escapeHtml(message)}</p>` : ''}
<form method="post" accept-charset="utf-8">
<button type="submit">${escapeHtml(options.buttonLabel.trim() || 'Approve')}</button>
</form>`,
	);
}

/** The form field that carries a Custom Form field's answer (n8n's own naming: field-0, field-1, …). */
export function customFieldName(index: number): string {
	return `field-${index}`;
}

function customFieldHtml(field: FormField, index: number): string {
	const name = customFieldName(index);
	const label = escapeHtml(field.label);
	const required = field.required ? ' required' : '';
	const placeholder = field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : '';
	if (field.type === 'checkbox') {
		const boxes = field.options
			.map(
				(option, i) =>
					`<label class="choice"><input type="checkbox" id="${name}-${i}" name="${name}" value="${escapeHtml(option)}">${escapeHtml(option)}</label>`,
			)
			.join('\n');
		return `<fieldset><legend>${label}</legend>\n${boxes}\n</fieldset>`;
	}
	const head = `<label for="${name}">${label}</label>`;
	if (field.type === 'dropdown') {
		const multiple = field.multiselect ? ' multiple' : '';
		const choices = field.options
			.map((option) => `<option value="${escapeHtml(option)}">${escapeHtml(option)}</option>`)
			.join('');
		const blank = field.multiselect ? '' : '<option value="">—</option>';
		return `${head}\n<select id="${name}" name="${name}"${multiple}${required}>${blank}${choices}</select>`;
	}
	if (field.type === 'textarea') {
		return `${head}\n<textarea id="${name}" name="${name}"${placeholder}${required}></textarea>`;
	}
	const type = field.type === 'number' ? 'number" step="any' : field.type;
	return `${head}\n<input type="${type}" id="${name}" name="${name}"${placeholder}${required}>`;
}

export interface CustomFormPageOptions extends FormPageOptions {
	fields: FormField[];
}

export function customFormPage(options: CustomFormPageOptions): string {
	// n8n 2.41 refuses (415) a custom form's answer that is not multipart, as for its own form nodes.
	return formPage(options, options.fields.map(customFieldHtml).join('\n'), true);
}

export function recordedPage(): string {
	return page(
		'Response recorded',
		'<h1>Got it, thanks</h1><p>Your response has been recorded. This page can be closed now.</p>',
	);
}

export function refusedPage(reason: string): string {
	return page('Link not valid', `<h1>This link is not valid</h1><p>${escapeHtml(reason)}</p>`);
}
