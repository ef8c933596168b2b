// The issue page in a real browser against a real server fed by real SDKs: @sentry/node's
// errors (test/clients/node), and a bundle whose Debug IDs sentry-cli injected and uploaded.
// Each triage action is taken as a person, and what the page then shows is checked.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import type { FormClient } from '../../support/dashboard-forms.ts';
import { listIssues, waitForIssue, waitForLatestEvent, type IssueJson } from '../../support/issues.ts';
import { connectAgent } from '../../support/mcp-client.ts';
import { envelopeUrlOf, newEventId, rawRequest } from '../../support/raw-http.ts';
import { buildSourceMapApp, sentryCli, throwFromBundle, type SourceMapApp } from '../../support/source-map-app.ts';
import {
  eventually,
  loggedLine,
  provision,
  REPO_ROOT,
  runCliJson,
  runProcess,
  type Provisioned,
  type StandaloneServer,
} from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

const CLIENT_DIR = join(REPO_ROOT, 'test', 'clients', 'node');
let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let admin: { email: string; client: FormClient };
let member: { email: string; client: FormClient };

beforeAll(async () => {
  // At info: a test reads the backend thread's log line of the payloads it erased.
  ({ server, browser } = await startWithBrowser({ ERRATA_LOG_LEVEL: 'info' }));
  p = await provision(server, 'Shop');
  admin = await signedInPerson(server, 'admin');
  member = await signedInPerson(server, 'member');
}, 60_000);
afterAll(() => stopWithBrowser(server, browser));

/** @sentry/node throws `TypeError: Cart <n> of <marker> is empty` three times from parseCart. */
async function sendErrors(project: Provisioned, marker: string): Promise<string[]> {
  const result = await runProcess(process.execPath, ['send-events.cjs', project.dsn, 'exception', marker], { cwd: CLIENT_DIR });
  if (result.code !== 0) throw new Error(`send-events failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { eventIds: string[] }).eventIds;
}

/** A fresh issue of three events, stored and readable. */
async function freshIssue(): Promise<{ marker: string; issue: IssueJson; project: Provisioned }> {
  // A project of its own: the client's errors all share one fingerprint, so in one project
  // every test's events would land in the same issue.
  const project = await provision(server, `Shop ${++shops}`);
  const marker = `m${randomUUID().slice(0, 8)}`;
  await sendErrors(project, marker);
  const issue = await waitForIssue(server, project, `of ${marker} is empty`, 3);
  // The issue is counted before its events are stored: wait until the page sees all three.
  await eventually(async () => {
    const { html } = await member.client.get(issuePath(issue.shortId));
    return html.includes('3 events in the last 24 hours') ? true : undefined;
  }, `the three stored events of ${issue.shortId}`);
  return { marker, issue, project };
}
let shops = 0;

const issuePath = (shortId: string, ...rest: string[]) =>
  `/organizations/${p.organization}/issues/${[shortId, ...rest].join('/')}`;

async function issueNow(project: Provisioned, shortId: string): Promise<IssueJson | undefined> {
  return (await listIssues(server, project)).find((i) => i.shortId === shortId);
}

async function post(client: FormClient, shortId: string, fields: Record<string, string>) {
  const csrf = await client.token(issuePath(shortId));
  return client.post(issuePath(shortId, 'actions'), { csrf, ...fields });
}

describe('the issue page', () => {
  let shared: { marker: string; issue: IssueJson; project: Provisioned };
  beforeAll(async () => {
    shared = await freshIssue();
  }, 60_000);

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`shows the issue and its latest event, cleanly in the ${colorScheme} scheme`, async () => {
      const { issue, marker } = shared;
      const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
        cookies: member.client.jar,
        colorScheme,
        screenshot: `issue-${colorScheme}`,
      });
      try {
        const { page } = checked;
        expect(checked.response.status()).toBe(200);
        await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(issue.title);
        const main = page.locator('.issue-main');
        // Newest frame first, in-app only, with numbered context lines around the throw.
        await expect(main.locator('.frame-file').first().textContent()).resolves.toMatch(/send-events\.cjs:\d+:\d+$/);
        await expect(main.locator('.frame-function').first().textContent()).resolves.toBe(' in parseCart');
        await expect(main.locator('.context-current code').first().textContent()).resolves.toContain('throw new TypeError');
        const tags = page.getByRole('region', { name: 'Tags' });
        await expect(tags.textContent()).resolves.toContain(`marker${marker}100%`);
        await expect(tags.textContent()).resolves.toContain("Each value's share of the events that carried its tag.");
        await expect(tags.locator('[title="3 of 3 events"]').first().textContent()).resolves.toBe('100%');
        const chart = page.getByRole('img', { name: /^Events per hour, the last 24 hours/ });
        await expect(chart.count()).resolves.toBe(1);
        await expect(page.locator('desc#chart-summary').textContent()).resolves.toMatch(/^3 events in the last 24 hours/);
        await expect(page.getByRole('region', { name: 'Details' }).textContent()).resolves.toContain(
          `Last releasenode-client@${marker}`,
        );
        // A member may triage but not delete.
        expect(await page.getByRole('button', { name: 'Resolve', exact: true }).count()).toBe(1);
        expect(await page.getByRole('link', { name: 'Delete…' }).count()).toBe(0);
      } finally {
        await checked.close();
      }
    });
  }

  it('is one column and still clean on a 390px screen, and offers the 14-day chart and the other trace views', async () => {
    const checked = await openCheckedPage(browser, `${server.url}${issuePath(shared.issue.shortId)}?period=14d&view=full`, {
      cookies: member.client.jar,
      screenshot: 'issue-14d-full',
    });
    try {
      const { page } = checked;
      await expect(page.getByRole('img', { name: /^Events per day, the last 14 days/ }).count()).resolves.toBe(1);
      expect(await page.locator('.frame').count()).toBeGreaterThan(3);
      await page.getByRole('link', { name: 'Raw' }).click();
      await page.waitForLoadState('load');
      await expect(page.locator('.raw-trace').textContent()).resolves.toMatch(
        /^TypeError: Cart \d+ of m\w+ is empty\n {4}at parseCart \(/,
      );
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('issue-narrow');
      // The facts, then the event, then what is related; the title and culprit wrap, never cut.
      const top = (await page.locator('.issue-side-top').boundingBox())!;
      const main = (await page.locator('.issue-main').boundingBox())!;
      const more = (await page.locator('.issue-side-more').boundingBox())!;
      expect(main.y).toBeGreaterThan(top.y + top.height - 1);
      expect(more.y).toBeGreaterThan(main.y + main.height - 1);
      for (const selector of ['h1', '.issue-head-culprit']) {
        const box = await page
          .locator(selector)
          .evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, right: e.getBoundingClientRect().right }));
        expect(box.scroll, selector).toBeLessThanOrEqual(box.client);
        expect(box.right, selector).toBeLessThanOrEqual(390);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await checked.close();
    }
  });

  it('offers the issue as Markdown and as an MCP call, as text and as copy buttons', async () => {
    const { issue } = shared;
    const { html } = await member.client.get(issuePath(issue.shortId));
    const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
      cookies: member.client.jar,
      screenshot: 'issue-copy',
    });
    try {
      const { page } = checked;
      const markdown = (await page.locator('#copy-copy-as-markdown').textContent())!;
      expect(markdown).toContain(`## ${issue.shortId}\n`);
      expect(markdown).toContain('- Status: unresolved');
      expect(markdown).toContain('- Events: 3, users: 1');
      expect(markdown).toContain(`- URL: ${server.url}${issuePath(issue.shortId)}`);
      // What the application sent is in the untrusted-data envelope, as the MCP tools give it.
      const captured = JSON.parse(/<untrusted-data>\n(.*)\n<\/untrusted-data>/.exec(markdown)![1]!);
      expect(captured.title).toBe(issue.title);
      expect(captured.topInAppFramesNewestFirst[0]).toMatchObject({
        function: 'parseCart',
        at: expect.stringMatching(/send-events\.cjs:\d+:\d+$/),
      });
      const call = JSON.parse((await page.locator('#copy-copy-as-mcp-call').textContent())!);
      expect(call).toEqual({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_issue_context', arguments: { shortId: issue.shortId } },
      });
      // The buttons are hidden without script (the server's HTML) and shown by the island.
      expect(html).toMatch(/<button type="button" class="button copy-button" data-copy="copy-copy-as-markdown" hidden/);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: 'Copy as MCP call' }).click();
      await expect(page.evaluate(() => navigator.clipboard.readText()).then((t) => JSON.parse(t))).resolves.toEqual(call);
    } finally {
      await checked.close();
    }
  });

  it('works without JavaScript: the copy buttons stay hidden, their texts and the actions are there', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      await context.addCookies(
        Object.entries(member.client.jar)
          .filter(([, v]) => v !== '')
          .map(([name, value]) => ({ name, value, url: server.url })),
      );
      const page = await context.newPage();
      await page.goto(`${server.url}${issuePath(shared.issue.shortId)}`);
      expect(await page.getByRole('button', { name: 'Copy as Markdown' }).isVisible()).toBe(false);
      await page.locator('summary', { hasText: 'Copy as Markdown: show the text' }).click();
      await expect(page.locator('#copy-copy-as-markdown').isVisible()).resolves.toBe(true);
      await page.locator('summary', { hasText: 'Snooze…' }).click();
      await expect(page.getByLabel('Minutes').isVisible()).resolves.toBe(true);
    } finally {
      await context.close();
    }
  });
});

describe('triage from the issue page', () => {
  it('resolves with a commit, release and note: the marker and the activity name the person', async () => {
    const { issue, project } = await freshIssue();
    const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
      cookies: member.client.jar,
      screenshot: 'issue-resolve-form',
    });
    try {
      const { page } = checked;
      await page.locator('summary', { hasText: 'Resolve with…' }).click();
      await page.getByLabel('Commit').fill('4f2a9c1');
      await page.getByLabel('Release').fill('shop@2.0.0');
      await page.getByLabel('Note').fill('Guard <empty> carts');
      await Promise.all([
        page.waitForURL(/\?done=resolve$/),
        page.locator('.action-popover').getByRole('button', { name: 'Resolve' }).click(),
      ]);
      await checked.recheck('issue-resolved');
      await expect(page.getByRole('status').textContent()).resolves.toBe('Resolved.');
      const resolution = (await page.getByRole('region', { name: 'Resolution' }).textContent())!;
      // shop@2.0.0 has never been seen: no event of another release can undo the resolve yet.
      expect(resolution).toContain('Waiting for its release This project has never seen the release the resolve names');
      expect(resolution).toContain(`Resolved by${member.email} (person)`);
      expect(resolution).toContain('Commit4f2a9c1');
      expect(resolution).toContain('Releaseshop@2.0.0 (never seen)');
      expect(resolution).toMatch(/Recent releases\S/);
      expect(resolution).toContain('NoteGuard <empty> carts');
      const activity = (await page.getByRole('region', { name: 'Activity' }).locator('li').first().textContent())!;
      expect(activity).toContain(`${member.email} (person) resolved`);
      expect(activity).toContain('note: Guard <empty> carts');
      expect(await page.getByRole('button', { name: 'Unresolve' }).count()).toBe(1);
    } finally {
      await checked.close();
    }
    expect((await issueNow(project, issue.shortId))?.status).toBe('resolved');
  });

  it('says the resolution regressed once @sentry/node sends the same error again', async () => {
    const { issue, marker, project } = await freshIssue();
    // Resolved in the release the client sends, so a new event of it is a regression.
    expect((await post(member.client, issue.shortId, { action: 'resolve', release: `node-client@${marker}` })).status).toBe(303);
    expect((await member.client.get(issuePath(issue.shortId))).html).toContain('No event has come since the resolve.');
    await sendErrors(project, marker);
    await eventually(
      async () => ((await issueNow(project, issue.shortId))?.status === 'unresolved' ? true : undefined),
      'the regression',
    );
    const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
      cookies: member.client.jar,
      screenshot: 'issue-regressed',
    });
    try {
      const resolution = (await checked.page.getByRole('region', { name: 'Resolution' }).textContent())!;
      expect(resolution).toContain('Regressed An event newer than the resolve brought the issue back.');
      expect(resolution).toMatch(/Since then\d+ events? \(releases node-client@/);
      const regressing = checked.page.getByRole('region', { name: 'Resolution' }).getByRole('link', { name: /^[0-9a-f]{32}$/ });
      await expect(regressing.getAttribute('href')).resolves.toMatch(new RegExp(`/issues/${issue.shortId}/events/[0-9a-f]{32}$`));
      const activity = (await checked.page.getByRole('region', { name: 'Activity' }).locator('li').first().textContent())!;
      expect(activity).toMatch(/^errata regressed/);
    } finally {
      await checked.close();
    }
  });

  it("shows an agent token's resolve as the token's, and the copied MCP call works as it is", async () => {
    const { issue, project } = await freshIssue();
    const agent = await connectAgent(server.url, project.token);
    try {
      const { html } = await member.client.get(issuePath(issue.shortId));
      const copied = JSON.parse(decodeEntities(/<pre id="copy-copy-as-mcp-call"[^>]*>([^<]*)<\/pre>/.exec(html)![1]!));
      const context = await agent.call(copied.params.name, copied.params.arguments);
      expect(context.isError).toBe(false);
      expect(context.structured.issue.shortId).toBe(issue.shortId);
      const resolved = await agent.call('update_issue', {
        shortId: issue.shortId,
        action: 'resolve',
        note: 'fixed by the agent',
      });
      expect(resolved.isError, resolved.text).toBe(false);
    } finally {
      await agent.close();
    }
    const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
      cookies: member.client.jar,
      screenshot: 'issue-agent-resolved',
    });
    try {
      const { page } = checked;
      const token = `admin-${project.projectSlug}`;
      await expect(page.getByRole('region', { name: 'Resolution' }).textContent()).resolves.toContain(
        `Resolved by${token} (agent token)`,
      );
      const activity = (await page.getByRole('region', { name: 'Activity' }).locator('li').first().textContent())!;
      expect(activity).toContain(`${token} (agent token) resolved`);
      expect(activity).toContain('note: fixed by the agent');
    } finally {
      await checked.close();
    }
  });

  it('unresolves, ignores and snoozes, each leaving a notice and the status', async () => {
    const { issue } = await freshIssue();
    const status = async () =>
      (await member.client.get(issuePath(issue.shortId))).html.match(/class="badge status status-(\w+)"/)?.[1];
    expect((await post(member.client, issue.shortId, { action: 'ignore' })).location).toBe(
      `${issuePath(issue.shortId)}?done=ignore`,
    );
    expect(await status()).toBe('ignored');
    expect((await post(member.client, issue.shortId, { action: 'unresolve' })).status).toBe(303);
    expect(await status()).toBe('unresolved');
    const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
      cookies: member.client.jar,
      screenshot: 'issue-snooze-form',
    });
    try {
      const { page } = checked;
      await page.locator('summary', { hasText: 'Snooze…' }).click();
      await page.getByLabel('Minutes').fill('90');
      await Promise.all([page.waitForURL(/\?done=snooze$/), page.getByRole('button', { name: 'Snooze', exact: true }).click()]);
      await checked.recheck('issue-snoozed');
      await expect(page.locator('.issue-head-meta').textContent()).resolves.toMatch(/snoozeduntil in 1 h/);
      await expect(page.getByRole('region', { name: 'Activity' }).locator('li').first().textContent()).resolves.toContain(
        `${member.email} (person) snoozed for 90 min`,
      );
    } finally {
      await checked.close();
    }
    const refused = await post(member.client, issue.shortId, { action: 'snooze', snoozeMinutes: 'soon' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('snooze minutes must be a whole number, not &quot;soon&quot;');
  });

  it('deletes only for an admin, after a confirmation page; a member gets 403 and no button', async () => {
    const { issue, project } = await freshIssue();
    const forged = await post(member.client, issue.shortId, { action: 'delete', confirm: 'yes' });
    expect(forged.status).toBe(403);
    expect(forged.html).toContain('this needs the owner or admin role; you are member');
    expect((await member.client.get(issuePath(issue.shortId, 'delete'))).status).toBe(403);
    expect((await post(admin.client, issue.shortId, { action: 'delete' })).status).toBe(400);
    expect(await issueNow(project, issue.shortId)).toBeDefined();

    const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
      cookies: admin.client.jar,
      screenshot: 'issue-admin',
    });
    try {
      const { page } = checked;
      // The breadcrumb's project leads to that project's list, as the delete does below.
      const projectList = `issues?project=${project.projectSlug}`;
      expect((await page.locator('.crumbs a').nth(1).getAttribute('href'))?.endsWith(`/${projectList}`)).toBe(true);
      await page.getByRole('link', { name: 'Delete…' }).click();
      await page.waitForLoadState('load');
      await checked.recheck('issue-delete-confirm');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Delete ${issue.shortId}?`);
      await Promise.all([
        page.waitForURL((url) => url.href.endsWith(`/${projectList}&done=delete&n=1`)),
        page.getByRole('button', { name: 'Delete issue and events' }).click(),
      ]);
      await expect(page.getByRole('status').textContent()).resolves.toBe('Deleted 1 issue.');
    } finally {
      await checked.close();
    }
    expect(await issueNow(project, issue.shortId)).toBeUndefined();
    expect((await admin.client.get(issuePath(issue.shortId))).status).toBe(404);
    // The backend thread overwrites the deleted events' payloads in their files within its interval.
    const erasure = await loggedLine(server, 'payloads of deleted events, or copies not stored, overwritten');
    expect(erasure).toMatchObject({ overwritten: 3, gone: 0 });
  });
});

describe('events of an issue', () => {
  it('steps to older and newer events, and a permalink keeps its event after a newer one arrives', async () => {
    const { issue, marker, project } = await freshIssue();
    const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
      cookies: member.client.jar,
      screenshot: 'issue-events',
    });
    try {
      const { page } = checked;
      const latestId = (await page.locator('.event-id').textContent())!;
      expect(await page.locator('a[rel="next"]').count()).toBe(0);
      await page.locator('a[rel="prev"]').click();
      await page.waitForLoadState('load');
      const olderId = (await page.locator('.event-id').textContent())!;
      expect(olderId).not.toBe(latestId);
      expect(new URL(page.url()).pathname).toBe(issuePath(issue.shortId, 'events', olderId));
      await checked.recheck('issue-event-permalink');
      await page.locator('a[rel="next"]').click();
      await page.waitForLoadState('load');
      expect(await page.locator('.event-id').textContent()).toBe(latestId);

      await sendErrors(project, marker);
      await waitForIssue(server, project, `of ${marker} is empty`, 6);
      await page.goto(`${server.url}${issuePath(issue.shortId, 'events', latestId)}`);
      expect(await page.locator('.event-id').textContent()).toBe(latestId);
      expect(await page.locator('a[rel="next"]').count()).toBe(1);
      await page.goto(`${server.url}${issuePath(issue.shortId)}`);
      await eventually(async () => {
        await page.reload();
        return (await page.locator('.event-id').textContent()) !== latestId ? true : undefined;
      }, 'the newer event to be the latest');
    } finally {
      await checked.close();
    }
    expect((await member.client.get(issuePath(issue.shortId, 'events', 'f'.repeat(32)))).status).toBe(404);
  });
});

describe('what an event carries', () => {
  it('shows breadcrumbs, request, user, contexts and the logs of its trace, every markup payload as text', async () => {
    const marker = `x${randomUUID().slice(0, 8)}`;
    const evil = `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>${marker}`;
    const traceId = randomUUID().replace(/-/g, '');
    const eventId = newEventId();
    const now = Date.now() / 1000;
    const event = {
      event_id: eventId,
      timestamp: now,
      platform: 'javascript',
      level: 'error',
      release: `web@1.0.0${evil}`,
      environment: 'production',
      culprit: evil,
      logentry: { formatted: evil },
      exception: {
        values: [
          {
            type: `Error${marker}`,
            value: evil,
            stacktrace: {
              frames: [
                {
                  filename: `app/${evil}.js`,
                  function: evil,
                  lineno: 3,
                  colno: 5,
                  in_app: true,
                  context_line: evil,
                  pre_context: [evil],
                  post_context: [evil],
                },
              ],
            },
          },
        ],
      },
      breadcrumbs: { values: [{ timestamp: now - 5, category: `ui.click${evil}`, level: 'info', message: `crumb ${evil}` }] },
      tags: { [`flag${marker}`]: evil },
      user: { id: `user-${marker}`, email: `${marker}@example.com`, username: evil },
      request: { url: `https://shop.example/cart?q=${evil}`, method: 'POST', headers: { 'User-Agent': evil } },
      contexts: {
        trace: { trace_id: traceId, span_id: 'a'.repeat(16) },
        browser: { name: 'Chrome', version: evil },
        os: { name: 'macOS' },
      },
    };
    const logs = { items: [{ timestamp: now - 1, trace_id: traceId, level: 'warn', body: `log ${evil}` }] };
    const payload = JSON.stringify(event);
    const logPayload = JSON.stringify(logs);
    const body =
      `${JSON.stringify({ event_id: eventId })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) })}\n${payload}\n` +
      `${JSON.stringify({ type: 'log', item_count: 1 })}\n${logPayload}\n`;
    const sent = await rawRequest(envelopeUrlOf(server, p), { body });
    expect(sent.status).toBe(200);
    const issue = await waitForIssue(server, p, `Error${marker}`);
    await waitForLatestEvent(server, p, issue.shortId);
    await eventually(async () => {
      const { html } = await member.client.get(issuePath(issue.shortId));
      return html.includes(`log &lt;img`) ? true : undefined;
    }, 'the log of the trace on the page');

    for (const colorScheme of ['light', 'dark'] as const) {
      const checked = await openCheckedPage(browser, `${server.url}${issuePath(issue.shortId)}`, {
        cookies: member.client.jar,
        colorScheme,
        screenshot: `issue-event-details-${colorScheme}`,
      });
      try {
        const { page } = checked;
        expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
        expect(await page.locator('img, main script').count()).toBe(0);
        const region = (name: string) => page.getByRole('region', { name }).textContent();
        await expect(region('Breadcrumbs')).resolves.toContain(`crumb ${evil}`);
        await expect(region('Request and user')).resolves.toContain(`POST https://shop.example/cart?q=${evil}`);
        await expect(region('Request and user')).resolves.toContain(`User-Agent${evil}`);
        await expect(region('Request and user')).resolves.toContain(`username${evil}`);
        await expect(region('Contexts')).resolves.toContain(`version${evil}`);
        // Known contexts under Sentry's titles ("os" read "Os"), others under their key.
        const contextTitles = await page.locator('.contexts h3').allTextContents();
        expect(contextTitles).toEqual(expect.arrayContaining(['browser', 'Operating System']));
        await expect(region('Logs of this trace')).resolves.toContain(`log ${evil}`);
        await expect(region('Tags')).resolves.toContain(`flag${marker}${evil}`);
        await expect(page.locator('.context-current code').textContent()).resolves.toBe(evil);
        await expect(page.locator('.raw-json').textContent()).resolves.toContain(JSON.stringify(evil).slice(1, -1));
      } finally {
        await checked.close();
      }
    }
  });
});

describe('symbolicated frames', () => {
  let web: Provisioned;
  const apps: SourceMapApp[] = [];
  beforeAll(async () => {
    web = await provision(server, 'Web');
  });
  afterAll(async () => {
    for (const app of apps) await rm(app.dir, { recursive: true, force: true });
  });

  it('shows the original source from a sentry-cli upload, the minified frame one click away', async () => {
    const token = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', web.projectSlug], server.env))
      .plaintext;
    const app = await buildSourceMapApp();
    apps.push(app);
    const uploaded = await sentryCli(['sourcemaps', 'upload', join(app.dist)], {
      SENTRY_URL: server.url,
      SENTRY_AUTH_TOKEN: token,
      SENTRY_PROJECT: web.projectSlug,
    });
    expect(uploaded.code, uploaded.stderr).toBe(0);
    await eventually(async () => {
      const listed = await runCliJson<{ artifacts: unknown[] }>(['listsourcemaps', '--project', web.projectSlug], server.env);
      return listed.artifacts.length === 2 ? true : undefined;
    }, 'the uploaded bundle');
    await throwFromBundle(app, web.dsn);
    const issue = await waitForIssue(server, web, 'Cannot read properties of undefined');
    await waitForLatestEvent(server, web, issue.shortId);

    const checked = await openCheckedPage(
      browser,
      `${server.url}/organizations/${web.organization}/issues/${issue.shortId}?view=full`,
      {
        cookies: member.client.jar,
        screenshot: 'issue-symbolicated',
      },
    );
    try {
      const { page } = checked;
      const frame = page.locator('.frame', { has: page.locator('.badge', { hasText: 'source map' }) }).first();
      await expect(frame.locator('.frame-file').textContent()).resolves.toMatch(/src\/cart\.js:2:\d+$/);
      await expect(frame.locator('.context-current code').textContent()).resolves.toContain('cart.items.reduce');
      const minified = frame.locator('.minified code');
      expect(await minified.isVisible()).toBe(false);
      await frame.locator('.minified summary').click();
      expect(await minified.isVisible()).toBe(true);
      await expect(minified.textContent()).resolves.toMatch(/dist\/app\.js:\d+:\d+$/);
      expect(await page.getByText('No uploaded source map matched').count()).toBe(0);
      await checked.recheck('issue-symbolicated-minified');
    } finally {
      await checked.close();
    }
  });

  it('says so when no uploaded source map matched the Debug ID', async () => {
    // A project of its own, which no map was uploaded to.
    const plain = await provision(server, 'Plain');
    const app = await buildSourceMapApp();
    apps.push(app);
    await throwFromBundle(app, plain.dsn);
    const issue = await waitForIssue(server, plain, 'Cannot read properties of undefined');
    await waitForLatestEvent(server, plain, issue.shortId);
    const { html } = await member.client.get(`/organizations/${plain.organization}/issues/${issue.shortId}`);
    expect(html).toContain(`No uploaded source map matched Debug ID ${app.debugId}`);
  });
});

/** The few entities preact writes in text. */
function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
