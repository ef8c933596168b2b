// The Logs page and the trace view against a real server fed by a real SDK (@sentry/node,
// test/clients/node/log-scenario.cjs), as a member: searches by level, text, trace id,
// attribute equality and number comparison; the histogram's bar narrowing the window; a row
// opened and an attribute added to the search; columns kept in the address; the copied
// search_logs call answering the same records through the real MCP client; the trace view's
// log, error, log in time order; a bad search explained; another organization's project a 404.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import type { FormClient } from '../../support/dashboard-forms.ts';
import { addOrganization } from '../../support/embedded-admin.ts';
import { waitForIssue, type IssueJson } from '../../support/issues.ts';
import { connectAgent } from '../../support/mcp-client.ts';
import { envelopeUrlOf, rawRequest } from '../../support/raw-http.ts';
import {
  api,
  eventually,
  REPO_ROOT,
  runCliJson,
  runProcess,
  startServer,
  stopAndRemove,
  initializedDataDir,
  type Provisioned,
  type StandaloneServer,
} from '../../support/standalone-server.ts';

const MARKER = `m${process.pid}x${Date.now().toString(36)}`;
const BODIES = {
  cart: `served cart ${MARKER}`,
  pay: `served pay ${MARKER}`,
  disk: `disk almost full ${MARKER}`,
  declined: `<img src=x onerror=alert(1)> declined ${MARKER}`,
  started: `checkout started ${MARKER}`,
  cleaned: `checkout cleaned up ${MARKER}`,
};

let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let member: { email: string; client: FormClient };
let trace: string;
let issue: IssueJson;

const logsPath = (params: Record<string, string> = {}) =>
  `/organizations/${p.organization}/logs?${new URLSearchParams({ project: p.projectSlug, ...params })}`;

/** The log bodies a page lists, in its order (summaries of the rows' details). */
function bodiesOf(html: string): string[] {
  return [...html.matchAll(/<summary>([^<]*)<\/summary>/g)].map((m) => unescape(m[1]!)).filter((b) => b.includes(MARKER));
}
function unescape(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

async function search(query: string): Promise<string[]> {
  const answer = await member.client.get(logsPath({ query }));
  expect(answer.status, answer.html.slice(0, 400)).toBe(200);
  return bodiesOf(answer.html);
}

/** provision() for an instance of two organizations: the project and token in `default`. */
async function provisionDefault(): Promise<Provisioned> {
  const made = await runCliJson<{ organization: string; project: { slug: string; id: number }; dsn: string }>(
    ['createproject', '--name', 'Shop', '--organization', 'default'],
    server.env,
  );
  const token = await runCliJson<{ plaintext: string }>(
    ['createtoken', '--role', 'admin', '--organization', 'default'],
    server.env,
  );
  return {
    organization: made.organization,
    projectSlug: made.project.slug,
    projectId: made.project.id,
    dsn: made.dsn,
    publicKey: new URL(made.dsn).username,
    token: token.plaintext,
  };
}

beforeAll(async () => {
  const dataDir = await initializedDataDir();
  await runCliJson(['listprojects'], { ...process.env, ERRATA_DATA_DIR: dataDir });
  await addOrganization(dataDir, 'other-org');
  await addOrganization(dataDir, 'empty-org');
  server = await startServer({ dataDir });
  browser = await launchChromium(inject('chromium'));
  p = await provisionDefault();
  await runCliJson(['createproject', '--name', 'Secret', '--organization', 'other-org'], server.env);
  member = await signedInPerson(server, 'member');
  const sent = await runProcess(process.execPath, [
    join(REPO_ROOT, 'test', 'clients', 'node', 'log-scenario.cjs'),
    p.dsn,
    MARKER,
  ]);
  expect(sent.code, sent.stderr).toBe(0);
  const logs = await eventually(async () => {
    const answer = await api<{ logs: Array<{ body: string; traceId: string | null }> }>(
      server,
      `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/logs?query=${MARKER}&sinceMinutes=60&limit=50`,
      p.token,
    );
    return answer.body.logs.length === 6 ? answer.body.logs : undefined;
  }, 'the six log records');
  trace = logs.find((l) => l.body === BODIES.started)!.traceId!;
  expect(trace).toMatch(/^[0-9a-f]{32}$/);
  expect(logs.find((l) => l.body === BODIES.cart)!.traceId).not.toBe(trace);
  issue = await waitForIssue(server, p, `checkout crashed ${MARKER}`);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) await stopAndRemove(server);
});

describe('the Logs page over HTTP', () => {
  it('searches by level, text, trace id, attribute equality and number comparison', async () => {
    expect(await search(MARKER)).toEqual([BODIES.cleaned, BODIES.started, BODIES.declined, BODIES.disk, BODIES.pay, BODIES.cart]);
    expect(await search(`level:warning ${MARKER}`)).toEqual([BODIES.disk]);
    // Free text is one phrase, found in the message in any case, as search_logs' query is.
    expect(await search(`SERVED marker:${MARKER}`)).toEqual([BODIES.pay, BODIES.cart]);
    expect(await search(`trace:${trace.toUpperCase()}`)).toEqual([BODIES.cleaned, BODIES.started]);
    expect(await search(`route:/pay marker:${MARKER}`)).toEqual([BODIES.pay]);
    expect(await search(`duration_ms:>100 ${MARKER}`)).toEqual([BODIES.pay]);
    expect(await search(`duration_ms:<=40 ${MARKER}`)).toEqual([BODIES.cart]);
    expect(await search(`http.status_code:>=400 ${MARKER}`)).toEqual([BODIES.declined]);
  });

  it('pages the way its sort goes: newest first to older records, oldest first to newer ones', async () => {
    const mark = `paged${process.pid}`;
    const items = Array.from({ length: 55 }, (_, n) => ({
      timestamp: Date.now() / 1000 - 600 + n,
      level: 'info',
      body: `${mark} ${n}`,
    }));
    const body = `{}\n{"type":"log","item_count":55,"content_type":"application/vnd.sentry.items.log+json"}\n${JSON.stringify({ items })}\n`;
    expect((await rawRequest(envelopeUrlOf(server, p), { body })).status).toBe(200);
    await eventually(async () => {
      const answer = await member.client.get(logsPath({ query: mark }));
      return answer.html.includes('rel="next"') ? true : undefined;
    }, 'a second page of the 55 records');
    const pagingOf = (html: string) =>
      [
        ...html
          .split('class="paging-links"')[1]!
          .split('</span>')[0]!
          .matchAll(/>([A-Za-z]+)</g),
      ].map((m) => m[1]);
    expect(pagingOf((await member.client.get(logsPath({ query: mark }))).html)).toEqual(['Older']);
    const oldest = await member.client.get(logsPath({ query: mark, sort: 'oldest' }));
    // Before, "Older" led to newer records and "Newest" back to the oldest.
    expect(pagingOf(oldest.html)).toEqual(['Newer']);
    const next = /<a class="button button-small" href="([^"]+)" rel="next">/.exec(oldest.html)![1]!.replace(/&amp;/g, '&');
    expect(pagingOf((await member.client.get(next)).html)).toEqual(['Oldest']);
  });

  it('links to the live tail of the same project, which links back', async () => {
    const { html } = await member.client.get(logsPath());
    const live = `/organizations/${p.organization}/logs/live?project=${p.projectSlug}`;
    expect(html).toContain(`href="${live}"`);
    const tail = await member.client.get(live);
    expect(tail.status).toBe(200);
    expect(tail.html).toContain(`href="/organizations/${p.organization}/logs?project=${p.projectSlug}"`);
  });

  it('says in an organization without projects that logs need one, on the Logs page and the live tail', async () => {
    for (const path of ['logs', 'logs/live']) {
      const { status, html } = await member.client.get(`/organizations/empty-org/${path}`);
      expect(status).toBe(200);
      expect(html).toContain('<h1>No projects yet</h1>');
      expect(html).toContain('Logs belong to a project.');
      expect(html).toContain('href="/organizations/empty-org/projects"');
    }
  });

  it('sends the histogram of a search by text after the page, and with it to a browser without JavaScript', async () => {
    const { html } = await member.client.get(logsPath({ query: MARKER }));
    expect(html).not.toContain('volume-link');
    const fragment = /hx-get="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    expect(fragment).toMatch(new RegExp(`^/organizations/${p.organization}/logs/volume\\?`));
    const pinned = new URL(fragment!, server.url).searchParams;
    expect(pinned.get('query')).toBe(MARKER);
    expect(pinned.get('from')).toBeTruthy();
    // htmx's request: the chart alone, counting the six records.
    const chart = await member.client.get(fragment!, { 'HX-Request': 'true' });
    expect(chart.status).toBe(200);
    expect(chart.html.startsWith('<section class="logs-volume"')).toBe(true);
    const counted = [...chart.html.matchAll(/aria-label="[^"]*: (\d+) records?/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(counted).toBe(6);
    // The noscript link: the whole page, its histogram counted.
    const page = await member.client.get(fragment!);
    expect(page.html).toContain('<h1>Logs</h1>');
    expect(page.html).toContain('volume-link');
    // A search by level alone comes with its histogram.
    expect((await member.client.get(logsPath({ query: 'level:error' }))).html).toContain('volume-link');
  });

  it('escapes captured text: a body with markup is text, never an element', async () => {
    const { html } = await member.client.get(logsPath({ query: 'declined' }));
    expect(html).toContain('&lt;img src=x onerror=alert(1)> declined');
    expect(html).not.toContain('<img src=x');
  });

  it('explains a bad search on the page with a 400, and what to write instead', async () => {
    const answer = await member.client.get(logsPath({ query: 'duration_ms:>fast' }));
    expect(answer.status).toBe(400);
    expect(answer.html).toContain('compares numbers: write duration_ms:>250');
    const window = await member.client.get(logsPath({ window: 'forever' }));
    expect(window.status).toBe(400);
    expect(window.html).toContain('is not one of 15m, 1h, 24h, 7d, 30d');
  });

  it("answers another organization's project, and an unknown one, with a 404", async () => {
    const other = await member.client.get(`/organizations/${p.organization}/logs?project=secret`);
    expect(other.status).toBe(404);
    expect(other.html).toContain('This organization has no project &quot;secret&quot;');
    expect((await member.client.get(`/organizations/other-org/logs?project=${p.projectSlug}`)).status).toBe(404);
    expect((await member.client.get(`/organizations/other-org/traces/${trace}`)).html).not.toContain(MARKER);
  });

  it('copies a search_logs call that answers the same records through the real MCP client', async () => {
    const query = `duration_ms:>10 route:/pay ${MARKER}`;
    const { html } = await member.client.get(logsPath({ query }));
    const call = JSON.parse(unescape(/<pre id="copy-copy-as-search-logs-call"[^>]*>([^<]*)<\/pre>/.exec(html)![1]!));
    expect(call.params.name).toBe('search_logs');
    expect(call.params.arguments).toMatchObject({
      project: p.projectSlug,
      query: MARKER,
      attributes: { route: '/pay' },
      comparisons: [{ attribute: 'duration_ms', operator: '>', value: 10 }],
    });
    const agent = await connectAgent(server.url, p.token);
    try {
      const result = await agent.call('search_logs', call.params.arguments);
      expect(result.isError, result.text).toBe(false);
      expect(result.structured.untrustedData.logs.map((l: { body: string }) => l.body)).toEqual(bodiesOf(html));
      expect(bodiesOf(html)).toEqual([BODIES.pay]);
    } finally {
      await agent.close();
    }
  });
});

describe('the Logs page in the browser', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`opens for a member with its histogram and rows, in the ${colorScheme} scheme`, async () => {
      const checked = await openCheckedPage(browser, `${server.url}${logsPath({ query: MARKER })}`, {
        cookies: member.client.jar,
        colorScheme,
        screenshot: `logs-${colorScheme}`,
      });
      try {
        const { page } = checked;
        expect(await page.getByRole('link', { name: 'Logs', exact: true }).getAttribute('aria-current')).toBe('page');
        await page.getByText(BODIES.pay).click();
        await checked.recheck(`logs-row-open-${colorScheme}`);
      } finally {
        await checked.close();
      }
    });
  }

  it('narrows the window to a bar, adds an attribute to the search and keeps chosen columns in the address', async () => {
    const checked = await openCheckedPage(browser, `${server.url}${logsPath({ query: MARKER })}`, {
      cookies: member.client.jar,
      screenshot: 'logs-before-narrowing',
    });
    try {
      const { page } = checked;
      // The records sat within a second: one or two bars (of two minutes each) hold them, each
      // link naming its count; the first leads to its window and lists that many records.
      // A search by text: the histogram arrives after the page.
      await page.locator('a.volume-link').first().waitFor();
      const labels = await page
        .locator('a.volume-link')
        .evaluateAll((links) => links.map((a) => a.getAttribute('aria-label') ?? ''));
      expect(labels).toHaveLength(30);
      const counted = labels.map((label) => Number(/: (\d+) records?/.exec(label)?.[1] ?? 0));
      expect(counted.reduce((a, b) => a + b, 0)).toBe(6);
      const index = counted.findIndex((n) => n > 0);
      await page.getByRole('link', { name: labels[index]! }).click();
      await page.waitForURL(/from=/);
      const narrowed = new URL(page.url());
      const from = Date.parse(narrowed.searchParams.get('from')!);
      const to = Date.parse(narrowed.searchParams.get('to')!);
      expect(to - from).toBeLessThanOrEqual(121_000);
      expect(narrowed.searchParams.get('query')).toBe(MARKER);
      expect(await page.locator('.log-message summary').allTextContents()).toHaveLength(counted[index]!);
      await checked.recheck('logs-narrowed');

      // Back to the hour, where every record is, to open one.
      await page.goto(`${server.url}${logsPath({ query: MARKER })}`);
      await page.getByText(BODIES.pay).click();
      await page.getByRole('link', { name: 'Add route:/pay to the search' }).click();
      await page.waitForURL(/route/);
      expect(new URL(page.url()).searchParams.get('query')).toBe(`${MARKER} route:/pay`);
      expect(await page.locator('.log-message summary').allTextContents()).toEqual([BODIES.pay]);

      await page.getByText(BODIES.pay).click();
      await page.getByRole('link', { name: 'Show duration_ms as a column' }).click();
      await page.waitForURL(/columns=/);
      expect(new URL(page.url()).searchParams.get('columns')).toBe('duration_ms');
      expect(await page.getByRole('columnheader', { name: /duration_ms/ }).count()).toBe(1);
      expect(await page.locator('td.log-column').allTextContents()).toEqual(['900']);
      await checked.recheck('logs-with-column');
      await page.getByRole('link', { name: 'Remove column duration_ms' }).click();
      await page.waitForURL((url) => !url.searchParams.has('columns'));
    } finally {
      await checked.close();
    }
  });

  it('fits a narrow screen', async () => {
    const checked = await openCheckedPage(browser, `${server.url}${logsPath({ query: MARKER, columns: 'route' })}`, {
      cookies: member.client.jar,
      screenshot: 'logs-wide-first',
    });
    try {
      await checked.page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('logs-narrow');
      expect(await checked.page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    } finally {
      await checked.close();
    }
  });
});

describe('the trace view', () => {
  it("shows a trace's log, error and log in time order, the error linked to its issue, for a member", async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const checked = await openCheckedPage(browser, `${server.url}/organizations/${p.organization}/traces/${trace}`, {
        cookies: member.client.jar,
        colorScheme,
        screenshot: `trace-${colorScheme}`,
      });
      try {
        const items = await checked.page.locator('.trace-item .trace-text').allTextContents();
        expect(items).toEqual([BODIES.started, expect.stringContaining(`checkout crashed ${MARKER}`), BODIES.cleaned]);
        const link = checked.page.getByRole('link', { name: new RegExp(issue.shortId) });
        expect(await link.getAttribute('href')).toBe(`/organizations/${p.organization}/issues/${issue.shortId}`);
      } finally {
        await checked.close();
      }
    }
  });

  it("is reached from a row and from the issue page's logs of the trace, and refuses an address that is not a trace id", async () => {
    const { html } = await member.client.get(logsPath({ query: `trace:${trace}` }));
    expect(html).toContain(`href="/organizations/${p.organization}/traces/${trace}"`);
    const issuePage = await member.client.get(`/organizations/${p.organization}/issues/${issue.shortId}`);
    expect(issuePage.html).toMatch(new RegExp(`<a href="/organizations/${p.organization}/traces/${trace}">Open the trace</a>`));
    const bad = await member.client.get(`/organizations/${p.organization}/traces/not-a-trace`);
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('a trace id is 32 hex characters');
  });
});
