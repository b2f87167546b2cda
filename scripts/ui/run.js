#!/usr/bin/env node
'use strict';
/**
 * `npm run test:ui` (bash scripts/toolchain.sh node scripts/ui/run.js): the packed package in a real
 * n8n 2.40.7 with the sandbox service, driven in Debian's Chromium through playwright-core. Each
 * scenario of issue 15 ends with assertions on what the page shows and a screenshot in
 * .ui/screenshots/ (git-ignored); .ui/screenshots/contact-sheet.png shows them all at once.
 *
 *   node scripts/ui/run.js                 every scenario
 *   node scripts/ui/run.js --only 3,5      some of them (by number)
 *
 * Ends with "ui: N passed, M failed" and exits non-zero when a scenario failed.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const env = require('./env');
const browser = require('./browser');
const { log } = require('../lib/n8n');

const SCENARIOS = [
	require('./scenarios/01-nodes-panel'),
	require('./scenarios/02-credential'),
	require('./scenarios/03-fields'),
	require('./scenarios/04-pickers'),
	require('./scenarios/05-execute'),
	require('./scenarios/06-trigger'),
	require('./scenarios/07-dark-theme'),
	require('./scenarios/08-new-nodes'),
	require('./scenarios/09-message-panels'),
	require('./scenarios/10-trigger-panels'),
];
/** A scenario that hangs fails on its own; the run goes on with the next one. */
const SCENARIO_TIMEOUT_MS = 120_000;

function parseArgs(argv) {
	const args = { only: null };
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--only') args.only = new Set(argv[++i].split(',').map(Number));
		else throw new Error(`Unknown option ${argv[i]}: see the header of scripts/ui/run.js`);
	}
	return args;
}

async function signIn(context, url, cookieHeader) {
	const cookies = await context.cookies(url);
	if (cookies.some((c) => c.name === 'n8n-auth')) return;
	await context.addCookies(
		cookieHeader.split('; ').map((pair) => {
			const at = pair.indexOf('=');
			return { name: pair.slice(0, at), value: pair.slice(at + 1), url };
		}),
	);
}

async function main() {
	const args = parseArgs(process.argv.slice(2));
	const started = Date.now();
	const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
	browser.ensureChromium(log);
	const setup = await env.prepare();
	const { sandbox, app, session } = setup;
	log(`ui: n8n at ${app.url}, sandbox at ${sandbox.url} (${elapsed()})`);
	const { context, page } = await browser.launchBrowser(path.join(env.WORK, 'chromium-profile'));
	const shots = [];
	const results = [];
	try {
		for (const [index, scenario] of SCENARIOS.entries()) {
			const number = index + 1;
			if (args.only && !args.only.has(number)) continue;
			const prefix = String(number).padStart(2, '0');
			const softFailures = [];
			const t = {
				...setup,
				url: app.url,
				page,
				context,
				assert,
				settle: browser.settle,
				log: (message) => console.log(`       ${message}`),
				/** A failed expectation that lets the scenario go on to show (and screenshot) the rest. */
				expect(condition, message) {
					if (!condition) softFailures.push(message);
					return !!condition;
				},
				async shot(name, caption) {
					const file = path.join(env.SHOTS, `${prefix}-${name}.png`);
					await page.screenshot({ path: file });
					shots.push({ file, caption: `${number}. ${caption}` });
				},
				/** A workflow saved through the REST API, as the editor saves it (`extra`: e.g. pinData); returns its id. */
				async createWorkflow(name, nodes, connections = {}, extra = {}) {
					const { status, body } = await session.rest('POST', '/workflows', {
						name,
						nodes,
						connections,
						active: false,
						settings: {},
						...extra,
					});
					assert.equal(
						status,
						200,
						`creating workflow "${name}": ${JSON.stringify(body).slice(0, 300)}`,
					);
					return body.data.id;
				},
			};
			// Scenario 1 signs in through the form; the others need the session even when it was skipped or failed.
			if (number > 1) await signIn(context, app.url, session.cookie);
			const begun = Date.now();
			let error;
			let timer;
			try {
				await Promise.race([
					scenario.run(t),
					new Promise((_, reject) => {
						timer = setTimeout(
							() =>
								reject(new Error(`scenario did not finish within ${SCENARIO_TIMEOUT_MS / 1000} s`)),
							SCENARIO_TIMEOUT_MS,
						);
					}),
				]);
				if (softFailures.length) error = new Error(softFailures.join('\n'));
			} catch (thrown) {
				error = thrown;
				if (softFailures.length) error.message = `${softFailures.join('\n')}\n${error.message}`;
			} finally {
				clearTimeout(timer);
			}
			const seconds = ((Date.now() - begun) / 1000).toFixed(1);
			if (error) {
				const file = path.join(env.SHOTS, `${prefix}-failed.png`);
				await page.screenshot({ path: file }).catch(() => {});
				shots.push({ file, caption: `${number}. FAILED: ${scenario.title}`, failed: true });
				console.log(`  FAIL ${number}. ${scenario.title} (${seconds} s)`);
				console.log(
					String(error.stack ?? error)
						.split('\n')
						.slice(0, 25)
						.map((l) => `       ${l}`)
						.join('\n'),
				);
				console.log(
					`       page: ${page.url()}\n       data-test-ids: ${(await browser.testIdsOnPage(page)).slice(0, 1500)}`,
				);
			} else {
				console.log(`  ok  ${number}. ${scenario.title} (${seconds} s)`);
			}
			results.push(!error);
		}
		const sheet = path.join(env.SHOTS, 'contact-sheet.png');
		await browser.contactSheet(
			context,
			shots.filter((s) => require('node:fs').existsSync(s.file)),
			sheet,
		);
		console.log(
			`ui: ${shots.length} screenshots and ${path.relative(process.cwd(), sheet)} (${elapsed()})`,
		);
	} finally {
		await context.close().catch(() => {});
		await app.stop();
		await sandbox.stop();
	}
	const passed = results.filter(Boolean).length;
	console.log(`ui: ${passed} passed, ${results.length - passed} failed`);
	process.exit(results.length > 0 && passed === results.length ? 0 : 1);
}

main().catch((error) => {
	console.error(error.stack ?? error);
	console.log('ui: 0 passed, 1 failed');
	process.exit(1);
});
