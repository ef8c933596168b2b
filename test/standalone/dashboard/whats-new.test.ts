// The What's new page against a real server fed by a real SDK (@sentry/node, test/clients/node):
// an issue resolved and come back (regressed, and new in the window), and one arriving loud (new,
// and a burst: ten events with none before). The page lists both with their reasons, as the
// whats_new tool does without a release, opens cleanly in chromium for a member in both schemes,
// narrows to a project (a quiet one says nothing needs attention) and to an environment,
// changes its window, and refuses a window or project it does not know with a page saying which.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import type { FormClient } from '../../support/dashboard-forms.ts';
import { waitForIssue, type IssueJson } from '../../support/issues.ts';
import { connectAgent, sendScenario, type Agent } from '../../support/mcp-client.ts';
import { eventually, provision, type Provisioned, type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let quiet: Provisioned;
let member: { email: string; client: FormClient };
let agent: Agent;
let regressed: IssueJson;
let loud: IssueJson;

const pagePath = (params: Record<string, string> = {}) =>
  `/organizations/${p.organization}/whats-new${Object.keys(params).length ? `?${new URLSearchParams(params)}` : ''}`;

beforeAll(async () => {
  ({ server, browser } = await startWithBrowser());
  p = await provision(server, 'Shop');
  quiet = await provision(server, 'Quiet');
  member = await signedInPerson(server, 'member');
  agent = await connectAgent(server.url, p.token);
  const m = `m${randomUUID().slice(0, 8)}`;
  await sendScenario(p.dsn, 'checkout-error', m, 'shop@1.0.0', 2);
  regressed = await waitForIssue(server, p, `Checkout ${m} failed`, 2);
  const path = `/organizations/${p.organization}/issues/${regressed.shortId}`;
  const csrf = await member.client.token(path);
  expect((await member.client.post(`${path}/actions`, { csrf, action: 'resolve', release: 'shop@1.0.0' })).status).toBe(303);
  await sendScenario(p.dsn, 'checkout-error', m, 'shop@2.0.0');
  const loudly = `${m}loud`;
  await sendScenario(p.dsn, 'checkout-error', loudly, 'shop@2.0.0', 10, 'staging');
  loud = await waitForIssue(server, p, `Checkout ${loudly} failed`, 10);
  await eventually(async () => {
    const answer = await agent.call('whats_new', {});
    const issues = (answer.structured?.issues ?? []) as Array<{ shortId: string; reasons: string[] }>;
    return issues.find((i) => i.shortId === regressed.shortId)?.reasons.includes('regressed') ? true : undefined;
  }, 'the regression');
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await stopWithBrowser(server, browser);
});

/** Each row's short id and reasons, as the page shows them. */
function rowsOn(page: Page): Promise<Array<[string | null, string[]]>> {
  return page
    .locator('tr.whats-new-row')
    .evaluateAll((trs) =>
      trs.map((tr) => [
        tr.querySelector('.whats-new-short-id')!.textContent,
        Array.from(tr.querySelectorAll('.reason-list .reason-badge'), (b) => b.textContent ?? ''),
      ]),
    );
}

describe("the What's new page", () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`lists what needs attention with its reasons, as whats_new does, for a member in the ${colorScheme} scheme`, async () => {
      const checked = await openCheckedPage(browser, `${server.url}/organizations/${p.organization}/issues`, {
        cookies: member.client.jar,
        colorScheme,
        screenshot: `whats-new-issues-${colorScheme}`,
      });
      try {
        const { page } = checked;
        // In the main navigation, next to Issues.
        await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).resolves.toEqual(
          expect.arrayContaining(['Issues', "What's new"]),
        );
        await Promise.all([
          page.waitForURL((url) => url.pathname.endsWith('/whats-new')),
          page.getByRole('link', { name: "What's new" }).click(),
        ]);
        await checked.recheck(`whats-new-${colorScheme}`);
        const tool = (await agent.call('whats_new', {})).structured!;
        const listed = (tool.issues as Array<{ shortId: string; reasons: string[] }>).map((i) => [i.shortId, i.reasons]);
        expect(await rowsOn(page)).toEqual(listed);
        expect(listed).toEqual(
          expect.arrayContaining([
            [regressed.shortId, ['regressed', 'new']],
            [loud.shortId, ['new', 'burst']],
          ]),
        );
        await expect(page.locator('#whats-new-summary').textContent()).resolves.toBe(
          '2 issues need attention in the last 24 hours across 2 projects: 1 regressed, 2 new, 1 burst.',
        );
        // A row's short id opens its issue.
        await Promise.all([
          page.waitForURL((url) => url.pathname.endsWith(`/issues/${loud.shortId}`)),
          page.getByRole('link', { name: loud.shortId, exact: true }).click(),
        ]);
      } finally {
        await checked.close();
      }
    });
  }

  it('narrows to a project, says when nothing needs attention there, and changes its window', async () => {
    const checked = await openCheckedPage(browser, `${server.url}${pagePath()}`, {
      cookies: member.client.jar,
      screenshot: 'whats-new-all',
    });
    try {
      const { page } = checked;
      await Promise.all([
        page.waitForURL((url) => url.searchParams.get('project') === quiet.projectSlug),
        page.getByLabel('Project').selectOption(quiet.projectSlug),
      ]);
      await checked.recheck('whats-new-quiet');
      await expect(page.getByRole('heading', { name: 'Nothing needs attention' }).isVisible()).resolves.toBe(true);
      await expect(page.locator('tr.whats-new-row').count()).resolves.toBe(0);

      await Promise.all([
        page.waitForURL((url) => url.searchParams.get('project') === p.projectSlug),
        page.getByLabel('Project').selectOption(p.projectSlug),
      ]);
      await Promise.all([
        page.waitForURL((url) => url.searchParams.get('minutes') === '15'),
        page.getByLabel('Window').selectOption('15'),
      ]);
      await checked.recheck('whats-new-15-minutes');
      const tool = (await agent.call('whats_new', { project: p.projectSlug, sinceMinutes: 15 })).structured!;
      expect(await rowsOn(page)).toEqual(
        (tool.issues as Array<{ shortId: string; reasons: string[] }>).map((i) => [i.shortId, i.reasons]),
      );
      await expect(page.locator('#whats-new-summary').textContent()).resolves.toMatch(/in the last 15 minutes across Shop/);
    } finally {
      await checked.close();
    }
  });

  it('narrows to an environment, as whats_new does with one', async () => {
    const checked = await openCheckedPage(browser, `${server.url}${pagePath()}`, {
      cookies: member.client.jar,
      screenshot: 'whats-new-environments',
    });
    try {
      const { page } = checked;
      // The environments the organization's events came from, across its projects.
      await expect(page.getByLabel('Environment').locator('option').allTextContents()).resolves.toEqual([
        'All environments',
        'agents',
        'staging',
      ]);
      await Promise.all([
        page.waitForURL((url) => url.searchParams.get('environment') === 'staging'),
        page.getByLabel('Environment').selectOption('staging'),
      ]);
      await checked.recheck('whats-new-staging');
      const tool = (await agent.call('whats_new', { environment: 'staging' })).structured!;
      const listed = (tool.issues as Array<{ shortId: string; reasons: string[] }>).map((i) => [i.shortId, i.reasons]);
      expect(listed).toEqual([[loud.shortId, ['new', 'burst']]]);
      expect(await rowsOn(page)).toEqual(listed);
      await expect(page.locator('#whats-new-summary').textContent()).resolves.toBe(
        '1 issue needs attention in the last 24 hours across 2 projects in staging: 1 new, 1 burst.',
      );
    } finally {
      await checked.close();
    }
  });

  it('refuses a window it does not offer (400) and a project the organization does not have (404), saying which', async () => {
    const window = await member.client.get(pagePath({ minutes: '7' }));
    expect(window.status).toBe(400);
    expect(window.html).toContain('minutes=7 is not a window this page offers: use one of 15, 60, 1440, 10080.');
    const project = await member.client.get(pagePath({ project: 'no-such-project' }));
    expect(project.status).toBe(404);
    expect(project.html).toContain('No project no-such-project in');
    // What was asked for is echoed only in part: a query value can be as long as the request line.
    const long = await member.client.get(pagePath({ minutes: '9'.repeat(5_000) }));
    expect(long.status).toBe(400);
    expect(long.html).toContain(`minutes=${'9'.repeat(20)} is not a window`);
    expect(long.html).not.toContain('9'.repeat(21));
  });
});
