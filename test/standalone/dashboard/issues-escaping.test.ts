// Every string an event brings is text on the Issues page, never markup: one event carries
// script and markup payloads in its exception type and value, culprit, release and environment
// (which also fill the page's filter lists), and nothing runs and no element of theirs appears.
// (The CSP would stop a script anyway; markup that renders needs no script.) The issue page's
// own test (issue-page.test.ts) does the same for every field it shows.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { waitForIssue } from '../../support/issues.ts';
import { envelopeUrlOf, eventEnvelope, newEventId, rawRequest } from '../../support/raw-http.ts';
import { provision, type Provisioned, type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

/** Markup that would add an element with class "pwned" (or run code) if it were ever rendered. */
const MARKUP = '<b class="pwned">bold</b><img class="pwned" src="x" onerror="window.__pwned=1"><script>window.__pwned=2</script>';
const payload = (where: string) => `${where} ${MARKUP}`;
const TRACE_ID = 'ab'.repeat(16);

let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let cookies: Record<string, string>;

beforeAll(async () => {
  ({ server, browser } = await startWithBrowser());
  p = await provision(server, 'Escape App');
  cookies = (await signedInPerson(server, 'owner')).client.jar;
  const timestamp = Date.now() / 1000;
  const event = {
    event_id: newEventId(),
    timestamp,
    platform: 'javascript',
    level: 'error',
    message: payload('message'),
    culprit: payload('culprit'),
    release: 'rel<b class="pwned">x',
    environment: 'env<b class="pwned">x',
    tags: { 'tag<b class="pwned">k</b>': payload('tag value') },
    user: { id: payload('user id'), email: 'a<b class="pwned">@example.com', username: payload('username') },
    request: { url: 'https://shop.example/<script>x</script>', method: 'GET', headers: { 'X-Evil': payload('header') } },
    contexts: { trace: { trace_id: TRACE_ID, span_id: 'cd'.repeat(8) }, app: { name: payload('context') } },
    breadcrumbs: [{ timestamp: timestamp - 1, category: payload('category'), message: payload('breadcrumb'), level: 'info' }],
    exception: {
      values: [
        {
          type: 'Type<b class="pwned">Error</b>',
          value: payload('exception value'),
          stacktrace: {
            frames: [
              {
                filename: 'app/<b class="pwned">file</b>.js',
                function: payload('function'),
                lineno: 3,
                in_app: true,
                pre_context: [payload('pre')],
                context_line: payload('line'),
                post_context: [payload('post')],
                vars: { x: payload('var') },
              },
            ],
          },
        },
      ],
    },
  };
  const sent = await rawRequest(envelopeUrlOf(server, p), { body: eventEnvelope(event) });
  expect(sent.status).toBe(200);
  await waitForIssue(server, p, 'exception value');
});
afterAll(() => stopWithBrowser(server, browser));

async function expectInert(page: Page, mustShow: string[]): Promise<void> {
  expect(await page.locator('.pwned').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  const text = (await page.locator('body').textContent()) ?? '';
  for (const shown of mustShow) expect(text, `the page shows "${shown}" as text`).toContain(shown);
}

describe('event-derived text on the dashboard', () => {
  it('is text on the Issues page', async () => {
    const checked = await openCheckedPage(browser, `${server.url}/organizations/default/issues?project=${p.projectSlug}`, {
      cookies,
      screenshot: 'escaping-issues',
    });
    try {
      await expectInert(checked.page, ['exception value <b class="pwned">bold</b>', 'Type<b class="pwned">Error</b>']);
      // The filter lists are made from the stored environments and releases.
      expect(await checked.page.getByLabel('Environment').locator('option', { hasText: 'env<b class="pwned">x' }).count()).toBe(
        1,
      );
      expect(await checked.page.getByLabel('First release').locator('option', { hasText: 'rel<b class="pwned">x' }).count()).toBe(
        1,
      );
    } finally {
      await checked.close();
    }
  });
});
