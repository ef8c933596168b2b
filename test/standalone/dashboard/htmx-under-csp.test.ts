// htmx, as the dashboard bundles and configures it, works under the dashboard's policy: a click
// fetches a fragment and swaps it in, with no CSP violation (htmx would inject a stylesheet of
// its own unless the page's htmx-config turns it off) and no console error.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildAssets } from '../../../services/dashboard/assets/asset-builder.ts';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { serveUnderCsp } from '../../support/csp-page-server.ts';

let pages: Awaited<ReturnType<typeof serveUnderCsp>>;
let url: string;
let browser: Browser;

beforeAll(async () => {
  const [script, style] = await buildAssets();
  const routes: Record<string, { type: string; body: string | Uint8Array }> = {
    '/page': {
      type: 'text/html',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>htmx</title>
<meta name="htmx-config" content='{"includeIndicatorCSS":false}'><link rel="icon" href="data:,">
<link rel="stylesheet" href="/${style.name}"><script src="/${script.name}" defer></script></head>
<body><main><h1>htmx</h1><button hx-get="/fragment" hx-target="#out">Load</button><div id="out">before</div></main></body></html>`,
    },
    '/fragment': { type: 'text/html', body: '<p id="swapped">after</p>' },
    [`/${script.name}`]: { type: 'text/javascript', body: script.body },
    [`/${style.name}`]: { type: 'text/css', body: style.body },
  };
  pages = await serveUnderCsp(routes);
  url = pages.url;
  browser = await launchChromium(inject('chromium'));
});
afterAll(async () => {
  await browser?.close();
  await pages?.close();
});

describe('htmx under the dashboard policy', () => {
  it('swaps a fragment in, with no violation and no injected stylesheet', async () => {
    const checked = await openCheckedPage(browser, `${url}/page`, { screenshot: 'htmx-before' });
    try {
      const { page } = checked;
      await page.getByRole('button', { name: 'Load' }).click();
      await page.locator('#swapped').waitFor();
      expect(await page.locator('#out').textContent()).toBe('after');
      expect(await page.evaluate(() => document.adoptedStyleSheets.length)).toBe(0);
      await checked.recheck('htmx-after');
    } finally {
      await checked.close();
    }
  });
});
