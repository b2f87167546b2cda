'use strict';
const { CREDENTIAL_ID, CREDENTIAL_NAME } = require('../env');

/** How far an icon stands out from what is behind it: opaque share, and contrast ratio of its mean colour. */
async function iconContrast(img) {
	return await img.evaluate(async (el) => {
		await el.decode().catch(() => {});
		const size = 64;
		const canvas = document.createElement('canvas');
		canvas.width = size;
		canvas.height = size;
		const g = canvas.getContext('2d');
		g.drawImage(el, 0, 0, size, size);
		const data = g.getImageData(0, 0, size, size).data;
		const lum = (r, gr, b) => {
			const c = [r, gr, b].map((v) => {
				const s = v / 255;
				return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
			});
			return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
		};
		let bgElement = el;
		let bg = 'rgba(0, 0, 0, 0)';
		while (bgElement && /rgba\(\d+, \d+, \d+, 0\)|transparent/.test(bg)) {
			bg = getComputedStyle(bgElement).backgroundColor;
			bgElement = bgElement.parentElement;
		}
		const [br, bgg, bb] = bg.match(/\d+(\.\d+)?/g).map(Number);
		const background = lum(br, bgg, bb);
		let opaque = 0;
		let best = 1;
		for (let i = 0; i < data.length; i += 4) {
			if (data[i + 3] < 128) continue;
			opaque++;
			const l = lum(data[i], data[i + 1], data[i + 2]);
			const ratio = (Math.max(l, background) + 0.05) / (Math.min(l, background) + 0.05);
			best = Math.max(best, ratio);
		}
		return {
			src: el.getAttribute('src'),
			opaqueShare: opaque / (size * size),
			bestContrast: best,
			background: bg,
		};
	});
}

/** The dark theme: the nodes' dark icons load and stand out from the dark canvas. */
module.exports = {
	title: 'dark theme: the icons render (not blank) on the dark background',
	async run(t) {
		const { page, url } = t;
		const credentials = { messagingApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
		const workflowId = await t.createWorkflow(
			'UI: dark theme',
			[
				{
					id: 'trigger',
					name: 'Messaging Trigger',
					type: 'n8n-nodes-messaging.messagingTrigger',
					typeVersion: 2,
					position: [0, 0],
					parameters: {},
					credentials,
				},
				{
					id: 'send',
					name: 'Messaging',
					type: 'n8n-nodes-messaging.messaging',
					typeVersion: 2,
					position: [260, 0],
					parameters: {},
					credentials,
				},
			],
			{ 'Messaging Trigger': { main: [[{ node: 'Messaging', type: 'main', index: 0 }]] } },
		);
		await page.emulateMedia({ colorScheme: 'dark' });
		await page.goto(`${url}/home/workflows`);
		await page.evaluate(() => localStorage.setItem('N8N_THEME', 'dark'));
		try {
			await page.goto(`${url}/workflow/${workflowId}`);
			await page
				.waitForFunction(
					() =>
						document.body.getAttribute('data-theme') === 'dark' ||
						document.documentElement.classList.contains('dark') ||
						document.body.classList.contains('theme-dark'),
					null,
					{ timeout: 10_000 },
				)
				.catch(() => {});
			const icons = page.locator('[data-test-id=canvas-node] img');
			await t.settle(
				() => icons.count(),
				(n) => n >= 2,
				10_000,
			);
			await page.waitForFunction(() =>
				[...document.querySelectorAll('[data-test-id=canvas-node] img')].every(
					(i) => i.complete && i.naturalWidth > 0,
				),
			);
			const results = [];
			for (const img of await icons.all()) results.push(await iconContrast(img));
			t.log(`canvas icons: ${JSON.stringify(results)}`);
			t.expect(results.length >= 2, `both nodes show an icon on the canvas (${results.length})`);
			for (const r of results) {
				t.expect(/\.dark\.svg$/.test(r.src), `the dark variant is used: ${r.src}`);
				t.expect(
					r.opaqueShare > 0.05,
					`${r.src} is not blank (${(r.opaqueShare * 100).toFixed(0)}% opaque)`,
				);
				t.expect(
					r.bestContrast >= 3,
					`${r.src} stands out from ${r.background} (best contrast ${r.bestContrast.toFixed(1)}:1)`,
				);
			}
			const bodyBackground = await page.evaluate(
				() =>
					getComputedStyle(document.querySelector('[data-test-id=canvas]') ?? document.body)
						.backgroundColor,
			);
			t.log(`canvas background ${bodyBackground}`);
			await t.shot('canvas', 'dark theme: both nodes on the canvas');

			await page.getByTestId('node-creator-plus-button').click();
			await page.getByTestId('node-creator-search-bar').fill('Messaging');
			const creatorIcon = page.getByTestId('node-creator').locator('img').first();
			await creatorIcon.waitFor();
			const inPanel = await iconContrast(creatorIcon);
			t.expect(
				/\.dark\.svg$/.test(inPanel.src) && inPanel.opaqueShare > 0.05 && inPanel.bestContrast >= 3,
				`nodes panel icon in the dark theme: ${JSON.stringify(inPanel)}`,
			);
			await t.shot('nodes-panel', 'dark theme: nodes panel');
		} finally {
			await page.evaluate(() => localStorage.removeItem('N8N_THEME')).catch(() => {});
			await page.emulateMedia({ colorScheme: 'light' });
		}
	},
};
