// The Releases pages against a real server fed by a real SDK (@sentry/node, test/clients/node):
// two releases, one with a space, # and % in its name; an issue resolved in the first that
// regresses in the second, and one resolved naming the second. The list and a release page open
// cleanly in chromium for a member, the new_release alert's link (built as the alert builds it)
// lands on the release page, and an unknown release is a 404 naming it.
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardUrls } from '../../../services/core/alerts/alert-payload.ts';
import { openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import type { FormClient } from '../../support/dashboard-forms.ts';
import { listIssues, waitForIssue, type IssueJson } from '../../support/issues.ts';
import { sendScenario } from '../../support/mcp-client.ts';
import { eventually, provision, type Provisioned, type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

const FIRST = 'shop@1.2.0';
// Events cannot name a release with a slash (Sentry's rules, core/event/normalize-event.ts), but
// a space, # and % must travel through the address too.
const SECOND = 'shop 2.0 beta#1 100%';

let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let member: { email: string; client: FormClient };
/** Resolved naming FIRST, then regressed by an event of SECOND. */
let regressed: IssueJson;
/** Resolved naming SECOND; stays resolved. */
let resolved: IssueJson;
/** First seen with SECOND. */
let fresh: IssueJson;

const releasesPath = () => `/organizations/${p.organization}/projects/${p.projectSlug}/releases`;
const releasePath = (version: string) => `${releasesPath()}/${encodeURIComponent(version)}`;

async function resolve(issue: IssueJson, release: string): Promise<void> {
  const path = `/organizations/${p.organization}/issues/${issue.shortId}`;
  const csrf = await member.client.token(path);
  const answer = await member.client.post(`${path}/actions`, { csrf, action: 'resolve', release, note: `fixed in ${release}` });
  expect(answer.status).toBe(303);
}

beforeAll(async () => {
  ({ server, browser } = await startWithBrowser());
  p = await provision(server, 'Shop');
  member = await signedInPerson(server, 'member');
  const m = `m${randomUUID().slice(0, 8)}`;
  await sendScenario(p.dsn, 'checkout-error', m, FIRST, 2);
  regressed = await waitForIssue(server, p, `Checkout ${m} failed`, 2);
  await sendScenario(p.dsn, 'message', m, FIRST);
  resolved = await waitForIssue(server, p, `Plain message ${m}`);
  await resolve(regressed, FIRST);
  await resolve(resolved, SECOND);
  await sendScenario(p.dsn, 'checkout-error', m, SECOND);
  await sendScenario(p.dsn, 'checkout-error-elsewhere', m, SECOND);
  const issues = await eventually(async () => {
    const all = await listIssues(server, p);
    const again = all.find((i) => i.shortId === regressed.shortId);
    return all.length === 3 && again?.status === 'unresolved' ? all : undefined;
  }, 'the regression and the third issue');
  fresh = issues.find((i) => i.shortId !== regressed.shortId && i.shortId !== resolved.shortId)!;
}, 90_000);
afterAll(() => stopWithBrowser(server, browser));

describe('the releases list', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`lists each release with its counts, linked from the project page, for a member in the ${colorScheme} scheme`, async () => {
      const project = await openCheckedPage(browser, `${server.url}/organizations/${p.organization}/projects/${p.projectSlug}`, {
        cookies: member.client.jar,
        colorScheme,
        screenshot: `project-with-releases-tab-${colorScheme}`,
      });
      let listUrl: string;
      try {
        await project.page.getByRole('link', { name: 'Releases', exact: true }).click();
        await project.page.waitForURL(/\/releases$/);
        listUrl = project.page.url();
      } finally {
        await project.close();
      }
      const checked = await openCheckedPage(browser, listUrl, {
        cookies: member.client.jar,
        colorScheme,
        screenshot: `releases-${colorScheme}`,
      });
      try {
        expect(checked.response.status()).toBe(200);
        const rows = await checked.page
          .locator('.releases-table tbody tr')
          .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
        // Newest first: version, first seen, last seen, events, new issues, regressions.
        expect(rows.map((r) => [r[0], r[3], r[4], r[5]])).toEqual([
          [SECOND, '2', '1', '1'],
          [FIRST, '3', '2', '0'],
        ]);
        await checked.page.getByRole('link', { name: SECOND, exact: true }).click();
        await checked.page.waitForURL((url) => url.pathname === releasePath(SECOND));
        await expect(checked.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Release ${SECOND}`);
      } finally {
        await checked.close();
      }
    });
  }

  it('says how a release appears when a project has none yet', async () => {
    const empty = await provision(server, 'Quiet');
    const checked = await openCheckedPage(
      browser,
      `${server.url}/organizations/${empty.organization}/projects/${empty.projectSlug}/releases`,
      { cookies: member.client.jar, screenshot: 'releases-empty' },
    );
    try {
      expect(checked.response.status()).toBe(200);
      await expect(checked.page.locator('.empty-state').textContent()).resolves.toContain("set release in the SDK's options");
      expect(await checked.page.locator('.releases-table').count()).toBe(0);
    } finally {
      await checked.close();
    }
  });
});

describe('a release page', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`shows its new, regressed and resolved-in issues, each linked to its page, in the ${colorScheme} scheme`, async () => {
      const checked = await openCheckedPage(browser, `${server.url}${releasePath(SECOND)}`, {
        cookies: member.client.jar,
        colorScheme,
        screenshot: `release-${colorScheme}`,
      });
      try {
        const { page } = checked;
        expect(checked.response.status()).toBe(200);
        const section = (name: RegExp) => page.getByRole('region', { name });
        const shortIds = (name: RegExp) => section(name).locator('.release-short-id').allTextContents();
        await expect(shortIds(/^New in this release/)).resolves.toEqual([fresh.shortId]);
        await expect(shortIds(/^Regressed in this release/)).resolves.toEqual([regressed.shortId]);
        await expect(shortIds(/^Resolved in this release/)).resolves.toEqual([resolved.shortId]);
        // The marker that cites the release: who resolved it and their note.
        const marker = await section(/^Resolved in this release/)
          .locator('.release-marker')
          .textContent();
        expect(marker).toContain(`by ${member.email}`);
        expect(marker).toContain(`fixed in ${SECOND}`);
        await expect(page.locator('.release-facts').textContent()).resolves.toContain('Events2');
        // Its title is its latest event's by now: the link is found by the row's short id.
        await section(/^Regressed in this release/)
          .getByRole('row', { name: new RegExp(regressed.shortId) })
          .getByRole('link')
          .click();
        await page.waitForURL((url) => url.pathname === `/organizations/${p.organization}/issues/${regressed.shortId}`);
      } finally {
        await checked.close();
      }
    });
  }

  it('shows an issue resolved in the release that came back after, and the issues first seen in it', async () => {
    const { status, html } = await member.client.get(releasePath(FIRST));
    expect(status).toBe(200);
    const resolvedIn = html.slice(html.indexOf('id="resolved-heading"'));
    expect(resolvedIn).toContain(regressed.shortId);
    expect(resolvedIn).toContain('came back after this resolve');
    const newIn = html.slice(html.indexOf('id="new-heading"'), html.indexOf('id="regressed-heading"'));
    expect(newIn).toContain(regressed.shortId);
    expect(newIn).toContain(resolved.shortId);
    expect(html).toContain('No resolved issue came back with this release.');
    // The new issues on the Issues page, filtered by their first release: the same two.
    const triage = /href="([^"]+)">Triage them on the Issues page/.exec(html)![1]!.replace(/&amp;/g, '&');
    const list = await member.client.get(triage);
    expect(list.status).toBe(200);
    expect(list.html).toContain(regressed.shortId);
    expect(list.html).toContain(resolved.shortId);
    expect(list.html).not.toContain(fresh.shortId);
  });

  it("is where the new_release alert's link lands, for versions with @, a space, # and %", async () => {
    for (const [n, version] of [FIRST, SECOND].entries()) {
      const url = dashboardUrls.release(server.url, p.organization, p.projectSlug, version);
      const checked = await openCheckedPage(browser, url, {
        cookies: member.client.jar,
        screenshot: `release-alert-link-${n + 1}`,
      });
      try {
        expect(checked.response.status()).toBe(200);
        await expect(checked.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Release ${version}`);
      } finally {
        await checked.close();
      }
    }
  });

  it('answers 404 naming a release the project never saw', async () => {
    const { status, html } = await member.client.get(releasePath('shop@9.9.9'));
    expect(status).toBe(404);
    expect(html).toContain('has seen no release &quot;shop@9.9.9&quot;');
    // A slash, encoded, stays within the one segment.
    const slashed = await member.client.get(releasePath('shop/9.9'));
    expect(slashed.status).toBe(404);
    expect(slashed.html).toContain('has seen no release &quot;shop/9.9&quot;');
    const { status: noProject } = await member.client.get(`/organizations/${p.organization}/projects/nope/releases`);
    expect(noProject).toBe(404);
  });
});
