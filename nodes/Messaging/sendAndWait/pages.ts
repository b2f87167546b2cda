/**
 * Pure: the HTML pages the resume webhook answers with (the Free Text form, "response recorded", and the
 * refusals). Self-contained: no script, no external resource, every value escaped.
 */

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
textarea{width:100%;box-sizing:border-box;min-height:8rem;font:inherit;padding:.5rem;border:1px solid #afb8c1;border-radius:6px}
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

export function responseFormPage(options: FormPageOptions): string {
	const title = options.title.trim() || 'Your response';
	const description = options.description.trim();
	return page(
		title,
		`<h1>${escapeHtml(title)}</h1>
${description ? `<p>${escapeHtml(description)}</p>` : ''}
${options.error ? `<p class="error">${escapeHtml(options.error)}</p>` : ''}
<form method="post" accept-charset="utf-8">
<label for="${RESPONSE_FIELD}">Response</label>
<textarea id="${RESPONSE_FIELD}" name="${RESPONSE_FIELD}" required></textarea>
<button type="submit">${escapeHtml(options.buttonLabel.trim() || 'Submit')}</button>
</form>`,
	);
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
