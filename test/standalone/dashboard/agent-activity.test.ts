// The Agent activity page against a real server: a real MCP client with a triage token lists
// issues, resolves one, is refused create_project by its role, sends invalid arguments and runs
// into a low rate limit; each call shows on the page (in a real browser, light and dark) with its
// outcome and the issue it touched, never the token; the token, tool and issue filters narrow
// the list; the Agent tokens page counts the calls; the issue page links to its calls. Members
// are refused it and see no Settings; admins see it but not Agent tokens.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { waitForIssue } from '../../support/issues.ts';
import { connectAgent } from '../../support/mcp-client.ts';
import { envelopeUrlOf, eventEnvelope, newEventId, rawRequest } from '../../support/raw-http.ts';
import {
  eventually,
  provision,
  runCliJson,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../../support/standalone-server.ts';

const ORG = '/organizations/default';
const PAGE = `${ORG}/settings/agent-activity`;
// Low enough that a few calls reach it: every JSON-RPC message counts (initialize too).
const RATE_LIMIT = 12;
const NOTE = '<b>Fixed</b> by the retry in the payment client, see the long discussion in the pull request';

let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let shortId: string;
let triagePlaintext: string;
/** How many tool calls the triage token made, each of which should have a row. */
let triageCalls = 0;

beforeAll(async () => {
  server = await startServer({ env: { ERRATA_AGENT_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) } });
  browser = await launchChromium(inject('chromium'));
  p = await provision(server, 'Activity App');
  const sent = await rawRequest(envelopeUrlOf(server, p), {
    body: eventEnvelope({ event_id: newEventId(), level: 'error', message: 'activity marker failure', platform: 'node' }),
  });
  expect(sent.status).toBe(200);
  shortId = (await waitForIssue(server, p, 'activity marker failure')).shortId;

  triagePlaintext = (await runCliJson<{ plaintext: string }>(['createtoken', '--role', 'triage', '--name', 'triage-bot'], server.env))
    .plaintext;
  const triage = await connectAgent(server.url, triagePlaintext);
  try {
    expect((await triage.call('list_issues', { project: p.projectSlug })).isError).toBe(false);
    expect((await triage.call('update_issue', { shortId, action: 'resolve', note: NOTE })).isError).toBe(false);
    const refused = await triage.call('create_project', { name: 'Not Allowed' });
    expect(refused.text).toMatch(/^forbidden: create_project needs a token with role admin/);
    const invalid = await triage.call('update_issue', { shortId, action: 'explode' });
    expect(invalid.isError).toBe(true);
    triageCalls = 4;
    // whoami until the limit answers; the limit is low, so this ends within a few calls.
    for (let i = 0; i < RATE_LIMIT; i++) {
      const answer = await triage.call('whoami');
      triageCalls += 1;
      if (answer.text.startsWith('rate_limited')) break;
      expect(i).toBeLessThan(RATE_LIMIT - 1);
    }
  } finally {
    await triage.close();
  }
  const readerPlaintext = (await runCliJson<{ plaintext: string }>(['createtoken', '--role', 'read', '--name', 'reader'], server.env))
    .plaintext;
  const reader = await connectAgent(server.url, readerPlaintext);
  try {
    expect((await reader.call('whoami')).isError).toBe(false);
  } finally {
    await reader.close();
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server) await stopAndRemove(server);
});

const rowsIn = (html: string) => html.split('class="activity-time"').length - 1;

/** A token's id, from the page's token filter. */
function tokenIdIn(html: string, name: string): string {
  const match = new RegExp(`<option value="(\\d+)"[^>]*>${name}</option>`).exec(html);
  if (!match) throw new Error(`no token ${name} in the filter`);
  return match[1]!;
}

describe('the Agent activity page', () => {
  it('shows each call of the MCP client with its outcome and touched issue, light and dark, never the token', async () => {
    const owner = await signedInPerson(server, 'owner');
    // Rows are written once each answer is sent: wait until every call of both tokens is in.
    const html = await eventually(async () => {
      const answer = await owner.client.get(PAGE);
      return rowsIn(answer.html) === triageCalls + 1 ? answer.html : undefined;
    }, `${triageCalls + 1} rows on the page`);
    expect(html).not.toContain(triagePlaintext);

    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, { cookies: owner.client.jar, screenshot: 'agent-activity' });
    try {
      const { page } = checked;
      const row = (name: RegExp) => page.getByRole('row', { name });
      await expect(row(/list_issues/).textContent()).resolves.toMatch(/triage-bot.*list_issues.*project=activity-app.*ok/);
      const resolved = row(/update_issue.*action=resolve/);
      await expect(resolved.textContent()).resolves.toContain('ok');
      await expect(resolved.getByRole('link', { name: shortId }).getAttribute('href')).resolves.toBe(`${ORG}/issues/${shortId}`);
      // The agent's note is cut, and shown as text: its markup is not markup here.
      const args = resolved.locator('code.activity-args');
      await expect(args.textContent()).resolves.toBe(`shortId=${shortId} action=resolve note="<b>Fixed</b> by the retry in the paymen…"`);
      expect(await args.locator('b').count()).toBe(0);
      expect(await args.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
      await expect(row(/create_project/).textContent()).resolves.toContain('refused (role)');
      await expect(row(/update_issue.*action=explode/).textContent()).resolves.toContain('error (invalid arguments)');
      expect(await page.locator('.outcome-rate_limited').count()).toBe(1);
      await expect(row(/rate limited/).textContent()).resolves.toMatch(/triage-bot.*whoami/);
      expect(await row(/reader/).count()).toBe(1);
    } finally {
      await checked.close();
    }
    const dark = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: owner.client.jar,
      colorScheme: 'dark',
      screenshot: 'agent-activity-dark',
    });
    await dark.close();
  });

  it('filters by token, tool and issue through the address', async () => {
    const owner = await signedInPerson(server, 'owner');
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: owner.client.jar,
      screenshot: 'agent-activity-filtered',
    });
    try {
      const { page } = checked;
      await page.getByLabel('Token').selectOption({ label: 'reader' });
      await page.getByLabel('Tool').fill('whoami');
      await Promise.all([page.waitForURL(/token=\d+/), page.getByRole('button', { name: 'Filter' }).click()]);
      expect(new URL(page.url()).searchParams.get('tool')).toBe('whoami');
      expect(await page.locator('tbody tr').count()).toBe(1);
      await expect(page.locator('tbody tr').textContent()).resolves.toMatch(/reader.*whoami/);
      await checked.recheck('agent-activity-filtered-after');
    } finally {
      await checked.close();
    }

    const all = (await owner.client.get(PAGE)).html;
    const triageId = tokenIdIn(all, 'triage-bot');
    expect(rowsIn((await owner.client.get(`${PAGE}?token=${triageId}`)).html)).toBe(triageCalls);
    const updates = (await owner.client.get(`${PAGE}?tool=update_issue`)).html;
    expect(rowsIn(updates)).toBe(2);
    // The issue filter finds the calls that named it, in any case it was typed.
    const touched = await owner.client.get(`${PAGE}?issue=${shortId.toLowerCase()}`);
    expect(rowsIn(touched.html)).toBe(2);
    expect(touched.html).not.toContain('>list_issues<');
    const none = await owner.client.get(`${PAGE}?issue=NOPE-999`);
    expect(none.html).toContain('No call matches these filters.');
    const bad = await owner.client.get(`${PAGE}?issue=not%20an%20issue`);
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('the issue filter takes a short id such as WEB-12');
    expect((await owner.client.get(`${PAGE}?token=abc`)).status).toBe(400);
  });

  it("counts each token's calls of the last 24 hours on the Agent tokens page, linked to them", async () => {
    const owner = await signedInPerson(server, 'owner');
    const tokens = await owner.client.get(`${ORG}/settings/agent-tokens`);
    const triageId = tokenIdIn((await owner.client.get(PAGE)).html, 'triage-bot');
    expect(tokens.html).toContain(
      `<a href="${PAGE}?token=${triageId}">${triageCalls}<span class="visually-hidden"> calls by triage-bot: see them</span></a>`,
    );
    expect(tokens.html).toContain('<span class="visually-hidden"> calls by reader: see them</span>');
    // The settings navigation leads between the two pages.
    expect(tokens.html).toContain(`href="${PAGE}"`);
  });

  it("links from the issue page to the calls that touched the issue, for owners and admins only", async () => {
    const link = `href="${PAGE}?issue=${shortId}"`;
    for (const role of ['owner', 'admin'] as const) {
      const person = await signedInPerson(server, role);
      expect((await person.client.get(`${ORG}/issues/${shortId}`)).html, role).toContain(link);
    }
    const member = await signedInPerson(server, 'member');
    expect((await member.client.get(`${ORG}/issues/${shortId}`)).html).not.toContain('agent-activity');

    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/issues/${shortId}`, {
      cookies: admin.client.jar,
      screenshot: 'agent-activity-from-issue',
    });
    try {
      const { page } = checked;
      await Promise.all([page.waitForURL(/agent-activity/), page.getByRole('link', { name: 'Agent activity' }).click()]);
      await checked.recheck('agent-activity-issue-filtered');
      await expect(page.getByLabel('Issue').inputValue()).resolves.toBe(shortId);
      expect(await page.locator('tbody tr').count()).toBe(2);
      expect(await page.locator('tbody .activity-tool').allTextContents()).toEqual(['update_issue', 'update_issue']);
    } finally {
      await checked.close();
    }
  });
});

describe('who may see agent activity', () => {
  it('refuses a member with 403 and shows no Settings; an admin sees it and Settings, but not Agent tokens', async () => {
    const member = await signedInPerson(server, 'member');
    const refused = await member.client.get(PAGE);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('this needs the owner or admin role');
    expect(refused.html).not.toContain('triage-bot');
    expect((await member.client.get(`${ORG}/issues`)).html).not.toContain(`href="${ORG}/settings"`);

    const admin = await signedInPerson(server, 'admin');
    const seen = await admin.client.get(PAGE);
    expect(seen.status).toBe(200);
    expect(seen.html).toContain('triage-bot');
    expect(seen.html).not.toContain(`href="${ORG}/settings/agent-tokens"`);
    expect((await admin.client.get(`${ORG}/issues`)).html).toContain(`href="${ORG}/settings"`);
    expect((await admin.client.get(`${ORG}/settings/agent-tokens`)).status).toBe(403);
  });

  it('says how to connect an agent while no agent has called', async () => {
    // Another server's empty page, so the calls above are not on it.
    const empty = await startServer();
    try {
      const owner = await signedInPerson(empty, 'owner');
      const checked = await openCheckedPage(browser, `${empty.url}${PAGE}`, { cookies: owner.client.jar, screenshot: 'agent-activity-empty' });
      try {
        const { page } = checked;
        await expect(page.getByRole('heading', { name: 'No agent has called Errata yet' }).isVisible()).resolves.toBe(true);
        await expect(page.getByRole('link', { name: 'Agent tokens' }).first().getAttribute('href')).resolves.toBe(
          `${ORG}/settings/agent-tokens`,
        );
        await expect(page.locator('.activity-empty').textContent()).resolves.toContain('errata createtoken --role triage');
      } finally {
        await checked.close();
      }
    } finally {
      await stopAndRemove(empty);
    }
  });
});

describe('the Agent activity page after a project is deleted and its slug reused', () => {
  it("keeps the deleted project's calls, unlinked, and the new project's issue of the same short id finds none of them", async () => {
    const owner = await signedInPerson(server, 'owner');
    await runCliJson(['deleteproject', '--project', p.projectSlug, '--confirm', p.projectSlug], server.env);
    // Organization-wide, the token provision made stays; provision makes one of that name again.
    await runCliJson(['revoketoken', `admin-${p.projectSlug}`], server.env);
    const again = await provision(server, 'Activity App');
    expect(again.projectSlug).toBe(p.projectSlug);
    const sent = await rawRequest(envelopeUrlOf(server, again), {
      body: eventEnvelope({ event_id: newEventId(), level: 'error', message: 'a new project, the same slug', platform: 'node' }),
    });
    expect(sent.status).toBe(200);
    // The new project's first issue has the short id the deleted project's first issue had.
    expect((await waitForIssue(server, again, 'a new project, the same slug')).shortId).toBe(shortId);

    const all = (await owner.client.get(PAGE)).html;
    expect(all).toContain(`<span class="muted" title="Its project was deleted">${shortId}</span>`);
    expect(all).not.toContain(`href="${ORG}/issues/${shortId}"`);
    expect((await owner.client.get(`${PAGE}?issue=${shortId}`)).html).toContain('No call matches these filters.');
  });
});
