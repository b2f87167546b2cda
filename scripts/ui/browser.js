'use strict';
/**
 * Debian's Chromium driven through playwright-core (which downloads no browser), and the few editor
 * gestures the scenarios share. Selectors are n8n's own data-test-id attributes; waits are on page state.
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium, selectors } = require('playwright-core');

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/** CI starts on a fresh machine as root: install Debian's chromium when it is missing. */
function ensureChromium(log) {
	if (fs.existsSync(CHROMIUM)) return;
	log('ui: installing Debian’s chromium with apt-get (once)…');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	// Waits for another apt/dpkg run to release its lock instead of failing.
	const apt = (args) =>
		execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
			env,
			stdio: ['ignore', 'ignore', 'inherit'],
		});
	apt(['update', '-q']);
	apt(['install', '-y', '-q', '--no-install-recommends', 'chromium']);
	if (!fs.existsSync(CHROMIUM))
		throw new Error(`apt-get installed chromium but ${CHROMIUM} is missing`);
}

async function launchBrowser(profileDir) {
	fs.rmSync(profileDir, { recursive: true, force: true });
	fs.mkdirSync(profileDir, { recursive: true });
	selectors.setTestIdAttribute('data-test-id');
	const context = await chromium.launchPersistentContext(profileDir, {
		executablePath: CHROMIUM,
		headless: true,
		args: FLAGS,
		viewport: { width: 1440, height: 900 },
		// The run's own clock decides; a scenario that hangs fails with the step it waited for.
		timeout: 60_000,
	});
	context.setDefaultTimeout(20_000);
	const page = context.pages()[0] ?? (await context.newPage());
	return { context, page };
}

/** Polls `read` until `accept(value)`; returns the last value either way (the caller asserts on it). */
async function settle(read, accept, timeoutMs = 5_000) {
	const deadline = Date.now() + timeoutMs;
	let value = await read();
	while (!accept(value) && Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 100));
		value = await read();
	}
	return value;
}

/** Opens a select and returns its own list (aria-controls), not the one of a select still closing. */
async function openList(page, input, itemSelector) {
	await input.click();
	const listId = await input.locator('input[role=combobox]').first().getAttribute('aria-controls');
	const list = page.locator(`[id="${listId}"]`);
	const items = list.locator(itemSelector);
	await items.first().waitFor();
	const texts = await items.evaluateAll((els) =>
		// The headline without the description under it (n8n's multi-options list has no class for it).
		els.map((e) =>
			(
				e.querySelector('.option-headline') ??
				e.firstElementChild?.firstElementChild ??
				e
			).textContent.trim(),
		),
	);
	return { list, items, texts };
}

async function clickListItem(list, optionName, what) {
	const index = list.texts.indexOf(optionName);
	if (index === -1)
		throw new Error(
			`"${optionName}" is not among the options of ${what}: ${list.texts.join(', ')}`,
		);
	await list.items.nth(index).click();
}

/** Picks `optionName` in the options parameter `name` of the open node panel. */
async function chooseOption(page, name, optionName) {
	const input = page.getByTestId(`parameter-input-${name}`);
	if ((await selectedOption(input)) === optionName) return;
	const list = await openList(page, input, '[data-test-id=parameter-input-item]');
	await clickListItem(list, optionName, name);
	const shown = await settle(
		() => selectedOption(input),
		(text) => text === optionName,
	);
	// Closed before the next step (or screenshot) of the scenario.
	await list.list.waitFor({ state: 'hidden' }).catch(() => {});
	if (shown !== optionName)
		throw new Error(`${name} shows "${shown}" after choosing "${optionName}"`);
}

/** Adds `optionNames` to the multi-options parameter `name`; returns the tags it then shows. */
async function addToMultiOptions(page, name, optionNames) {
	const input = page.getByTestId(`parameter-input-${name}`);
	const list = await openList(page, input, '.el-select-dropdown__item');
	for (const optionName of optionNames) await clickListItem(list, optionName, name);
	await page.keyboard.press('Escape');
	const tags = () => input.locator('.el-select__tags-text').allInnerTexts();
	return await settle(tags, (shown) => optionNames.every((o) => shown.includes(o)));
}

/**
 * Adds `optionName` to the collection `name` with its Add Option / Add Field list, as a person does;
 * returns the names that list offered.
 */
async function addCollectionOption(page, name, optionName) {
	const item = page
		.getByTestId('parameter-item')
		.filter({ has: page.locator(`label[for="${name}"]`) })
		.first();
	const list = await openList(
		page,
		item.getByTestId('collection-parameter-add').first(),
		'[data-test-id=collection-parameter-option]',
	);
	await clickListItem(list, optionName, name);
	await item.locator(`label[for]`).filter({ hasText: optionName }).first().waitFor();
	return list.texts;
}

/** The text an options parameter shows (element-plus keeps it beside a read-only input). */
async function selectedOption(input) {
	return await input.evaluate((el) => {
		const selected = el.querySelector(
			'.el-select__selected-item:not(.is-hidden):not(.is-transparent), .el-select__placeholder:not(.is-transparent)',
		);
		return (selected?.textContent || el.querySelector('input')?.value || el.innerText || '').trim();
	});
}

/**
 * The top-level parameters the open node panel shows, in order: name (the label's `for`), label,
 * whether a required mark shows (an asterisk, or the issue icon n8n puts beside an empty required
 * field), and the value as displayed. With `within` (a collection's name), the fields shown inside it.
 */
async function visibleParameters(page, within) {
	return await page.getByTestId('node-parameters').evaluate((panel, within) => {
		const parentItem = (el) => el.parentElement.closest('[data-test-id=parameter-item]');
		let root = panel;
		if (within) {
			root = [...panel.querySelectorAll('[data-test-id=parameter-item]')].find(
				(item) =>
					item.offsetParent !== null &&
					!parentItem(item) &&
					item.querySelector(':scope label[for]')?.getAttribute('for') === within,
			);
			if (!root) return [];
		}
		const items = [...root.querySelectorAll('[data-test-id=parameter-item]')].filter(
			(item) => item.offsetParent !== null && parentItem(item) === (within ? root : null),
		);
		const shown = [];
		for (const item of items) {
			const label = item.querySelector('[data-test-id=input-label] label[for]');
			const notice = item.querySelector('.n8n-notice, [class*=notice]');
			if (!label) {
				if (notice)
					shown.push({
						name: '(notice)',
						label: notice.innerText.trim(),
						required: false,
						value: '',
					});
				continue; // the credential slot
			}
			const name = label.getAttribute('for');
			const labelText = (label.querySelector('span')?.textContent ?? label.textContent).trim();
			const asterisk = /\*$/.test(labelText);
			const input = item.querySelector(`[data-test-id="parameter-input-${name}"]`) ?? item;
			// A collection's own issue only, not one of a field inside it.
			const issues = [...item.querySelectorAll('[data-test-id=parameter-issues]')].some(
				(el) => el.closest('[data-test-id=parameter-item]') === item,
			);
			const collection = item.querySelector(':scope > .multi-parameter');
			let value;
			const toggle = input.querySelector('.el-switch, [role=switch]');
			const mode = input.querySelector('[data-test-id=rlc-mode-selector]');
			const field = input.querySelector(
				'[data-test-id=parameter-input-field], input:not([role=combobox]), textarea',
			);
			const select = input.querySelector('.el-select');
			if (collection) value = '';
			else if (mode) value = (mode.querySelector('input')?.value || mode.innerText).trim();
			else if (toggle)
				value = String(
					toggle.classList.contains('is-checked') || toggle.getAttribute('aria-checked') === 'true',
				);
			else if (select?.querySelector('.el-select__tags-text'))
				value = [...select.querySelectorAll('.el-select__tags-text')]
					.map((tag) => tag.textContent.trim())
					.join(', ');
			else if (select) {
				const selected = select.querySelector(
					'.el-select__selected-item:not(.is-hidden):not(.is-transparent)',
				);
				value = (selected?.textContent || select.querySelector('input')?.value || '').trim();
			} else if (field) value = field.value ?? field.textContent;
			else if (
				item.querySelector(
					'[data-test-id=collection-parameter-add], [data-test-id=fixed-collection-add]',
				)
			)
				value = '';
			else value = input.innerText.trim();
			shown.push({
				name,
				label: labelText.replace(/\s*\*$/, ''),
				required: asterisk || issues,
				value,
			});
		}
		return shown;
	}, within);
}

/** Every data-test-id on the page: printed when a scenario fails, to see what the editor showed instead. */
async function testIdsOnPage(page) {
	return await page
		.evaluate(() =>
			[
				...new Set(
					[...document.querySelectorAll('[data-test-id]')].map((e) =>
						e.getAttribute('data-test-id'),
					),
				),
			].join(' '),
		)
		.catch(() => '(page closed)');
}

/** Scrolls the panel to the field `name` (e.g. before a screenshot). */
async function showField(page, name) {
	await page
		.getByTestId('parameter-item')
		.filter({ has: page.locator(`label[for="${name}"]`) })
		.last()
		.scrollIntoViewIfNeeded();
}

/** Opens a workflow (created through the REST API) with one node's panel open. */
async function openNode(page, url, workflowId, nodeId) {
	await page.goto(`${url}/workflow/${workflowId}/${nodeId}`);
	await page.getByTestId('node-parameters').waitFor();
}

/** One image of all screenshots: an HTML page of tiles rendered in the same Chromium. */
async function contactSheet(context, shots, file) {
	const tiles = shots
		.map(({ file: shot, caption, failed }) => {
			const data = fs.readFileSync(shot).toString('base64');
			return `<figure class="${failed ? 'failed' : ''}"><img src="data:image/png;base64,${data}"><figcaption>${escapeHtml(caption)}</figcaption></figure>`;
		})
		.join('\n');
	const html = `<!doctype html><meta charset="utf-8"><style>
		body { margin: 0; padding: 12px; font: 13px system-ui, sans-serif; background: #eee; width: 1896px; }
		h1 { font-size: 16px; margin: 0 0 10px; }
		main { display: grid; grid-template-columns: repeat(4, 1fr); gap: 10px; }
		figure { margin: 0; background: #fff; border: 2px solid #ccc; }
		figure.failed { border-color: #d00; }
		img { width: 100%; display: block; }
		figcaption { padding: 4px 6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
	</style><h1>n8n-nodes-messaging in n8n's editor: ${shots.length} screenshots, ${new Date().toISOString()}</h1><main>${tiles}</main>`;
	const page = await context.newPage();
	try {
		await page.setViewportSize({ width: 1920, height: 1000 });
		await page.setContent(html);
		await page.waitForFunction(() =>
			[...document.images].every((i) => i.complete && i.naturalWidth > 0),
		);
		await page.screenshot({ path: file, fullPage: true });
	} finally {
		await page.close();
	}
}

const escapeHtml = (text) =>
	String(text).replace(
		/[&<>"]/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c],
	);

module.exports = {
	ensureChromium,
	launchBrowser,
	settle,
	chooseOption,
	addToMultiOptions,
	addCollectionOption,
	visibleParameters,
	showField,
	testIdsOnPage,
	openNode,
	contactSheet,
	CHROMIUM,
};
