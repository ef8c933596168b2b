// The live tail page in a real browser against a real server fed by a real SDK (@sentry/node,
// test/clients/node): the page opens cleanly (light and dark) for a member, what the client then
// logs appears as rows (its text as text, never markup), a flood pauses the tail with a message
// and a Resume button that goes on from now, and without JavaScript the page says the tail needs
// it and links to the Logs page.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import type { FormClient } from '../../support/dashboard-forms.ts';
import { provision, REPO_ROOT, runProcess, type Provisioned, type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

const CLIENT_DIR = join(REPO_ROOT, 'test', 'clients', 'node');
let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let member: { email: string; client: FormClient };

beforeAll(async () => {
  ({ server, browser } = await startWithBrowser());
  p = await provision(server, 'Tail Shop');
  member = await signedInPerson(server, 'member');
}, 180_000);
afterAll(() => stopWithBrowser(server, browser));

const tailPath = (query = '') => `/organizations/${p.organization}/logs/live?project=${p.projectSlug}${query}`;

async function sendLogs(scenario: 'logs' | 'log-flood', marker: string): Promise<void> {
  const result = await runProcess(process.execPath, ['send-events.cjs', p.dsn, scenario, marker], { cwd: CLIENT_DIR });
  if (result.code !== 0) throw new Error(`send-events failed: ${result.stderr}`);
}

/** Waits until the page's stream has opened (the island marks the box live). */
async function live(page: Page): Promise<void> {
  await page.locator('.log-tail[data-live]').waitFor();
}

describe('the live tail page', () => {
  it('shows what a real SDK logs as it arrives, its text as text, in light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const opened = await openCheckedPage(browser, `${server.url}${tailPath()}`, {
        screenshot: `log-tail-${colorScheme}`,
        colorScheme,
        cookies: member.client.jar,
      });
      try {
        expect(opened.response.status()).toBe(200);
        await live(opened.page);
        // Markup in a record is text: the marker travels in each body.
        const marker = `m${randomUUID().slice(0, 6)}<b>bold</b>`;
        await sendLogs('logs', marker);
        const rows = opened.page.locator('.log-tail-row');
        await rows.filter({ hasText: `Node log error ${marker} for cart 42` }).waitFor();
        expect(await rows.locator('.log-tail-body').allTextContents()).toEqual([
          `Node log info ${marker}`,
          `Node log warn ${marker}`,
          `Node log error ${marker} for cart 42`,
        ]);
        expect(await rows.locator('.log-tail-level').allTextContents()).toEqual(['info', 'warn', 'error']);
        expect(await opened.page.locator('.log-tail-rows b').count()).toBe(0);
        await expect(opened.page.locator('.log-tail-status').textContent()).resolves.toBe(
          'Live: 3 records since the tail started.',
        );
        await opened.recheck(`log-tail-rows-${colorScheme}`);
        if (colorScheme === 'dark') {
          // On a phone the rows wrap inside their box; the page does not widen.
          await opened.page.setViewportSize({ width: 390, height: 844 });
          await opened.recheck('log-tail-narrow-dark');
          expect(await opened.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        }
      } finally {
        await opened.close();
      }
    }
  });

  it('pauses when more than 1000 records arrive within 10 s, saying so, and resumes from now', async () => {
    const opened = await openCheckedPage(browser, `${server.url}${tailPath()}`, {
      screenshot: 'log-tail-before-flood',
      cookies: member.client.jar,
    });
    try {
      await live(opened.page);
      await sendLogs('log-flood', `f${randomUUID().slice(0, 6)}`);
      const status = opened.page.locator('.log-tail[data-ended] .log-tail-status');
      await status.waitFor();
      expect(await status.textContent()).toMatch(
        /^Paused: (more than )?[\d,]+ records arrived in [\d.]+ s; the live tail shows at most 1,000 in 10 s \(100 a second\)\. Narrow the filters, or resume to go on from now\.$/,
      );
      const button = opened.page.getByRole('button', { name: 'Resume' });
      await opened.recheck('log-tail-paused');
      await button.click();
      await opened.page
        .locator('.log-tail:not([data-ended]) .log-tail-status', { hasText: 'Live: waiting for records…' })
        .waitFor();
      expect(await opened.page.getByRole('button', { name: 'Stop' }).count()).toBe(1);
    } finally {
      await opened.close();
    }
  });

  it('says without JavaScript that the tail needs it, and links to the Logs page', async () => {
    const { status, html } = await member.client.get(tailPath('&level=error&q=timeout'));
    expect(status).toBe(200);
    expect(html).toContain(
      `<noscript><p class="notice notice-warning">Live tail needs JavaScript: it shows records as they arrive. <a href="/organizations/${p.organization}/logs?project=${p.projectSlug}">The Logs page</a>`,
    );
    expect((await member.client.get(`/organizations/${p.organization}/logs?project=${p.projectSlug}`)).status).toBe(200);
    // The box the script fills stays hidden without it, and the filters are a plain form.
    expect(html).toMatch(/<section class="log-tail"[^>]* hidden/);
    expect(html).toContain('<input type="checkbox" name="level" value="error" checked');
    expect(html).toContain(
      `data-log-tail="/organizations/${p.organization}/logs/live/stream?project=${p.projectSlug}&amp;level=error&amp;q=timeout"`,
    );
  });
});
