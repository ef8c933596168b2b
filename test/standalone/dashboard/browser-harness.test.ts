// The browser harness catches what it is there to catch: pages served here with an inline style
// under the dashboard's policy, a console error, or an unlabelled field each fail its check,
// and a clean page passes it.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { serveUnderCsp } from '../../support/csp-page-server.ts';

const page = (body: string, script = '/ready.js') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>harness</title><link rel="icon" href="data:,"><script src="${script}"></script></head><body><main><h1>Harness</h1>${body}</main></body></html>`;

const ROUTES: Record<string, { type: string; body: string }> = {
  '/clean': { type: 'text/html', body: page('<p>Fine.</p>') },
  '/inline-style': { type: 'text/html', body: page('<p style="color: red">Styled inline.</p>') },
  '/console-error': { type: 'text/html', body: page('<p>Logs an error.</p>', '/error.js') },
  '/unlabelled': { type: 'text/html', body: page('<form><input name="q"></form>') },
  // Stands in for the dashboard's bundle, whose having run the harness checks for.
  '/ready.js': { type: 'text/javascript', body: 'window.htmx = {};' },
  '/error.js': { type: 'text/javascript', body: 'window.htmx = {}; console.error("something broke");' },
};

let pages: Awaited<ReturnType<typeof serveUnderCsp>>;
let url: string;
let browser: Browser;

beforeAll(async () => {
  pages = await serveUnderCsp(ROUTES);
  url = pages.url;
  browser = await launchChromium(inject('chromium'));
});
afterAll(async () => {
  await browser?.close();
  await pages?.close();
});

describe('the browser harness', () => {
  it('passes a clean page', async () => {
    const checked = await openCheckedPage(browser, `${url}/clean`, { screenshot: 'harness-clean' });
    await checked.close();
  });

  it.each([
    ['/inline-style', /Content-Security-Policy violations.*style-src-attr blocked inline/s],
    ['/console-error', /console errors.*something broke/s],
    ['/unlabelled', /serious or critical accessibility violations.*label \(critical\)/s],
  ])('fails %s', async (path, failure) => {
    await expect(openCheckedPage(browser, `${url}${path}`, { screenshot: 'harness-failing' })).rejects.toThrow(failure);
  });
});
