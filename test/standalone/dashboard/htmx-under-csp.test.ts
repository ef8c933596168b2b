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
  const routes: Parameters<typeof serveUnderCsp>[0] = {
    '/page': {
      type: 'text/html',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>htmx</title>
<meta name="htmx-config" content='{"includeIndicatorCSS":false}'><link rel="icon" href="data:,">
<link rel="stylesheet" href="/${style.name}"><script src="/${script.name}" defer></script></head>
<body><main><h1>htmx</h1><button hx-get="/fragment" hx-target="#out">Load</button><div id="out">before</div></main></body></html>`,
    },
    '/fragment': { type: 'text/html', body: '<p id="swapped">after</p>' },
    // As the dashboard's frame carries it (components/document.tsx): the session's CSRF token for htmx.
    '/form-page': {
      type: 'text/html',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>htmx post</title>
<meta name="htmx-config" content='{"includeIndicatorCSS":false}'><meta name="errata-csrf" content="the-session-token"><link rel="icon" href="data:,">
<link rel="stylesheet" href="/${style.name}"><script src="/${script.name}" defer></script></head>
<body><main><h1>htmx post</h1><button hx-post="/echo" hx-target="#out">Post</button><div id="out">before</div></main></body></html>`,
    },
    // Echoes the token header back, with a time for the person's browser zone (components/time.tsx).
    '/echo': (req) => ({
      type: 'text/html',
      body: `<p id="echoed">${String(req.headers['x-errata-csrf'] ?? 'none')}</p><time id="when" datetime="2026-01-02T03:04:05.000Z" title="UTC" data-local>then</time>`,
    }),
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

  it("sends the session's CSRF token with a post, and gives swapped-in times the browser's zone", async () => {
    const checked = await openCheckedPage(browser, `${url}/form-page`, { screenshot: 'htmx-post' });
    try {
      const { page } = checked;
      await page.getByRole('button', { name: 'Post' }).click();
      await page.locator('#echoed').waitFor();
      expect(await page.locator('#echoed').textContent()).toBe('the-session-token');
      expect(await page.locator('#when').getAttribute('title')).not.toBe('UTC');
      await checked.recheck('htmx-post-after');
    } finally {
      await checked.close();
    }
  });
});
