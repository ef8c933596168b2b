// Parity between the agent interface and the dashboard. The SPEC asks both ways: through MCP an
// agent can do what the pages can do, and the pages must do at least what agents can. PARITY
// holds one row per MCP tool: the page or action that does the same, and a check that does the
// thing both ways against one real server fed by real SDKs (@sentry/node, test/clients/node):
// through the real MCP client with an organization-wide admin token, and in chromium as a
// signed-in person (each page held to browser.ts's bar: no console error, no CSP violation, no
// serious axe finding), and asserts that both show the same facts. The first test holds the
// table to the tools the server lists: a tool added without a row here fails it. Where a tool
// still does more than its page, the row's check would say so in a comment beside what it
// asserts; none does now.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import type { FormClient } from '../../support/dashboard-forms.ts';
import { listIssues, waitForIssue, waitForLogs, type IssueJson } from '../../support/issues.ts';
import { connectAgent, sendScenario, type Agent, type ToolCall } from '../../support/mcp-client.ts';
import {
  eventually,
  provision,
  REPO_ROOT,
  runProcess,
  type Provisioned,
  type StandaloneServer,
} from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

interface ParityRow {
  tool: string;
  /** The page or action that does what the tool does, in words. */
  page: string;
  /** Its address ({org}, {p} and {shortId} stand for the parts that vary). */
  path: string;
  /** Does the thing through the tool and through the page, and compares what each shows. */
  check: () => Promise<void>;
}

const PARITY: readonly ParityRow[] = [
  {
    tool: 'whoami',
    page: "Settings, Agent tokens: the calling token's row (name, role, scope, messages left this minute) in its organization; a token minted there answers whoami",
    path: '/organizations/{org}/settings/agent-tokens',
    check: whoamiRow,
  },
  {
    tool: 'list_projects',
    page: 'Projects: the list; a project made with its New project form is listed by the tool too',
    path: '/organizations/{org}/projects',
    check: listProjectsRow,
  },
  {
    tool: 'create_project',
    page: "Projects: the New project form, which opens the project's page with its DSN",
    path: 'POST /organizations/{org}/projects',
    check: createProjectRow,
  },
  {
    tool: 'get_dsn',
    page: "A project's page (its DSN) and its DSN keys tab (each key's label, DSN and whether it is active)",
    path: '/organizations/{org}/projects/{p}/keys',
    check: getDsnRow,
  },
  {
    tool: 'verify_installation',
    page: "A project's page: the installation check (kept live from /projects/{p}/installation)",
    path: '/organizations/{org}/projects/{p}',
    check: verifyInstallationRow,
  },
  {
    tool: 'list_issues',
    page: 'Issues: the same project, status, level and search, in the same order',
    path: '/organizations/{org}/issues?project={p}&query=…',
    check: listIssuesRow,
  },
  {
    tool: 'get_issue_context',
    page: "An issue's page: title, status, level, counts, the latest event (of one environment) and the resolve's marker",
    path: '/organizations/{org}/issues/{shortId}',
    check: getIssueContextRow,
  },
  {
    tool: 'update_issue',
    page: "An issue's actions: Resolve (with a commit, release, note), Unresolve, Ignore, Snooze, Delete",
    path: 'POST /organizations/{org}/issues/{shortId}/actions',
    check: updateIssueRow,
  },
  {
    tool: 'bulk_update_issues',
    page: "Issues: tick a filter's rows (or select all matching) and Resolve, Ignore, Snooze or Delete",
    path: 'POST /organizations/{org}/issues/bulk',
    check: bulkUpdateIssuesRow,
  },
  {
    tool: 'check_resolution',
    page: "An issue's page: the Resolution panel's verdict and its explanation",
    path: '/organizations/{org}/issues/{shortId}',
    check: checkResolutionRow,
  },
  {
    tool: 'whats_new',
    page: "What's new: the same window's issues with the same reasons (new, regressed, spiking, burst); with a release, the release's page: the issues new in it and regressed in it",
    path: '/organizations/{org}/whats-new?minutes=…',
    check: whatsNewRow,
  },
  {
    tool: 'search_logs',
    page: 'Logs: the same search over the same window, newest or oldest first, row for row; its "Copy as search_logs call"',
    path: '/organizations/{org}/logs?project={p}&query=…',
    check: searchLogsRow,
  },
];

const FIRST = 'shop@1.0.0';
const SECOND = 'shop@2.0.0';
/** One marker per row that needs issues of its own, so no row's actions change another's facts. */
const MARK = Object.fromEntries(
  ['list', 'context', 'update', 'bulk', 'resolution', 'release', 'logs'].map((k) => [k, `${k}${randomUUID().slice(0, 6)}`]),
) as Record<'list' | 'context' | 'update' | 'bulk' | 'resolution' | 'release' | 'logs', string>;

let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let agent: Agent;
/** The pages' person: an admin, who may do everything the admin token may. */
let admin: { email: string; client: FormClient };
/** Agent tokens are the owner's page. */
let owner: { email: string; client: FormClient };

beforeAll(async () => {
  ({ server, browser } = await startWithBrowser());
  p = await provision(server, 'Shop');
  admin = await signedInPerson(server, 'admin');
  owner = await signedInPerson(server, 'owner');
  agent = await connectAgent(server.url, p.token);
  // Two issues a scenario: "Checkout <m> failed" (error) and "Plain message <m>" (warning).
  for (const m of [MARK.list, MARK.context, MARK.update, MARK.bulk]) {
    await sendScenario(p.dsn, 'checkout-error', m, FIRST, 2);
    await sendScenario(p.dsn, 'message', m, FIRST);
  }
  // The latest event of this one comes from another environment than its first two.
  await sendScenario(p.dsn, 'checkout-error', MARK.context, FIRST, 1, 'staging');
  await sendScenario(p.dsn, 'checkout-error', MARK.resolution, FIRST);
  await sendScenario(p.dsn, 'checkout-error', MARK.release, FIRST);
  const logs = await runProcess(process.execPath, [
    join(REPO_ROOT, 'test', 'clients', 'node', 'log-scenario.cjs'),
    p.dsn,
    MARK.logs,
  ]);
  expect(logs.code, logs.stderr).toBe(0);
  for (const m of [MARK.list, MARK.context, MARK.update, MARK.bulk]) {
    await waitForIssue(server, p, `Checkout ${m} failed`, m === MARK.context ? 3 : 2);
    await waitForIssue(server, p, `Plain message ${m}`);
  }
  await waitForIssue(server, p, `Checkout ${MARK.resolution} failed`);
  await waitForIssue(server, p, `Checkout ${MARK.release} failed`);
  await waitForLogs(server, p, `query=${MARK.logs}&sinceMinutes=60`, 6);
}, 180_000);
afterAll(async () => {
  await agent?.close();
  await stopWithBrowser(server, browser);
});

describe('parity of the MCP tools and the dashboard', () => {
  it('has one row for each tool the MCP server lists, and no other', async () => {
    const { tools } = await agent.client.listTools();
    expect(PARITY.map((row) => row.tool).sort()).toEqual(tools.map((tool) => tool.name).sort());
    expect(new Set(PARITY.map((row) => row.tool)).size).toBe(PARITY.length);
  });

  for (const row of PARITY) {
    it(`${row.tool}: ${row.page} (${row.path})`, row.check, 120_000);
  }
});

// ---- The rows' checks ----------------------------------------------------------------------

async function whoamiRow(): Promise<void> {
  const me = await call('whoami');
  expect(me).toMatchObject({ role: 'admin', scope: { type: 'organization', project: null } });
  await onPage(owner, `/organizations/${me.organization}/settings/agent-tokens`, 'parity-whoami', async (page) => {
    // The page is of whoami's organization, and lists the calling token as whoami describes it.
    expect(new URL(page.url()).pathname).toBe(`/organizations/${me.organization}/settings/agent-tokens`);
    const tokenRow = page
      .getByRole('row')
      .filter({ has: page.locator('td.token-name', { hasText: new RegExp(`^${me.tokenName}$`) }) });
    await expect(tokenRow.locator('.badge').textContent()).resolves.toBe(me.role);
    await expect(tokenRow.locator('td').nth(2).textContent()).resolves.toBe('Whole organization');
    // Its messages left this minute, as whoami counted them (no message of the token since).
    await expect(tokenRow.locator('.token-rate-left').textContent()).resolves.toBe(
      `${me.rateLimit.remaining} of ${me.rateLimit.limit}`,
    );
    // What the role grants, in whoami's words, beside the form's Role.
    await expect(page.locator('#token-role-hint li', { hasText: `${me.role}:` }).textContent()).resolves.toBe(
      `${me.role}: ${me.grants}`,
    );

    // The other way: a project-scoped token minted on the page is what whoami then says it is.
    await page.getByLabel('Name (optional)').fill('parity-triage');
    await page.getByLabel('Role').selectOption('triage');
    await page.getByLabel('Scope').selectOption(p.projectSlug);
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create token' }).click(),
    ]);
    await page.waitForLoadState('load');
    const plaintext = /^export ERRATA_TOKEN=(\S+)$/.exec((await page.locator('#token-export').textContent())!)![1]!;
    const minted = await connectAgent(server.url, plaintext);
    try {
      const answer = await minted.call('whoami');
      expect(answer.isError, answer.text).toBe(false);
      expect(answer.structured).toMatchObject({
        tokenName: 'parity-triage',
        role: 'triage',
        scope: { type: 'project', project: p.projectSlug },
        organization: me.organization,
      });
    } finally {
      await minted.close();
    }
  });
}

async function listProjectsRow(): Promise<void> {
  const onThePage = async (page: Page) =>
    page
      .locator('.projects-table tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [tr.querySelector('.project-slug')!.textContent, tr.querySelector('.project-name')!.textContent]),
      );
  const listed = async () => {
    const { projects } = await call('list_projects');
    return (projects as Array<{ slug: string; name: string }>).map((project) => [project.slug, project.name]);
  };
  await onPage(admin, `/organizations/${p.organization}/projects`, 'parity-list-projects', async (page, checked) => {
    expect(sorted(await onThePage(page))).toEqual(sorted(await listed()));
    await page.getByLabel('Name').fill('Made On The Page');
    await Promise.all([page.waitForURL(/saved=created$/), page.getByRole('button', { name: 'Create project' }).click()]);
    await checked.recheck('parity-list-projects-created');
    expect(await listed()).toContainEqual(['made-on-the-page', 'Made On The Page']);
    await page.goto(`${server.url}/organizations/${p.organization}/projects`);
    expect(sorted(await onThePage(page))).toEqual(sorted(await listed()));
  });
}

async function createProjectRow(): Promise<void> {
  const made = await call('create_project', { name: 'Made By An Agent' });
  expect(made.project).toMatchObject({ slug: 'made-by-an-agent', organization: p.organization });
  await onPage(admin, `/organizations/${p.organization}/projects`, 'parity-create-project', async (page, checked) => {
    await Promise.all([
      page.waitForURL((url) => url.pathname.endsWith('/projects/made-by-an-agent')),
      page.getByRole('link', { name: 'Made By An Agent', exact: true }).click(),
    ]);
    await checked.recheck('parity-create-project-page');
    await expect(page.locator('#dsn').textContent()).resolves.toBe(made.dsn);

    // The form makes what the tool makes: a project and its DSN, which the tools then know.
    await page.goto(`${server.url}/organizations/${p.organization}/projects`);
    await page.getByLabel('Name').fill('Made By A Person');
    await Promise.all([page.waitForURL(/saved=created$/), page.getByRole('button', { name: 'Create project' }).click()]);
    const dsn = await page.locator('#dsn').textContent();
    expect((await call('get_dsn', { project: 'made-by-a-person' })).dsn).toBe(dsn);
  });
}

async function getDsnRow(): Promise<void> {
  const keysOnPage = (page: Page) =>
    page.locator('.key-card').evaluateAll((cards) =>
      cards.map((card) => ({
        label: card.querySelector('.key-label')!.textContent,
        dsn: card.querySelector('pre')!.textContent,
        active: card.querySelector('.badge')!.textContent === 'Active',
      })),
    );
  const before = await call('get_dsn', { project: p.projectSlug });
  expect(before.dsn).toBe(p.dsn);
  await onPage(admin, `/organizations/${p.organization}/projects/${p.projectSlug}`, 'parity-get-dsn', async (page, checked) => {
    await expect(page.locator('#dsn').textContent()).resolves.toBe(before.dsn);
    await page.goto(`${server.url}/organizations/${p.organization}/projects/${p.projectSlug}/keys`);
    await checked.recheck('parity-get-dsn-keys');
    expect(await keysOnPage(page)).toEqual(before.keys);
    // A key added and disabled on the page: get_dsn lists it, disabled, and keeps the active DSN.
    await page.getByLabel("New key's label").fill('Spare');
    await Promise.all([page.waitForURL(/saved=key-added$/), page.getByRole('button', { name: 'Add key' }).click()]);
    await Promise.all([
      page.waitForURL(/saved=key-disabled$/),
      page.getByRole('button', { name: 'Disable the key Spare' }).click(),
    ]);
    const after = await call('get_dsn', { project: p.projectSlug });
    expect(after.keys).toHaveLength(2);
    expect(await keysOnPage(page)).toEqual(after.keys);
    expect(after.dsn).toBe(before.dsn);
  });
}

async function verifyInstallationRow(): Promise<void> {
  const fresh = await provision(server, 'Install Check');
  const verdictOf = async () => (await call('verify_installation', { project: fresh.projectSlug })).verdict as string;
  const path = `/organizations/${fresh.organization}/projects/${fresh.projectSlug}`;
  const same = async (verdict: string, screenshot: string) => {
    await eventually(async () => ((await verdictOf()) === verdict ? true : undefined), `verify_installation saying ${verdict}`);
    await onPage(admin, path, screenshot, async (page) => {
      await expect(page.locator('#installation').getAttribute('data-verdict')).resolves.toBe(verdict);
    });
  };
  await same('waiting_for_first_event', 'parity-install-waiting');
  await installCheck(fresh.dsn, 'test-event');
  await same('test_event_received', 'parity-install-test-event');
  await installCheck(fresh.dsn, 'error');
  await same('real_event_received', 'parity-install-real-error');
  // Both name the issue the real error made.
  const { latestEvent } = await call('verify_installation', { project: fresh.projectSlug });
  await onPage(admin, path, 'parity-install-issue', async (page) => {
    await expect(page.locator('#installation').getByRole('link').textContent()).resolves.toBe(latestEvent.shortId);
  });
}

async function listIssuesRow(): Promise<void> {
  const m = MARK.list;
  await onPage(admin, issuesPath(), 'parity-list-issues', async (page, checked) => {
    for (const [query, args] of [
      [m, { query: m }],
      [`level:warning ${m}`, { level: 'warning', query: m }],
      [`is:all ${m}`, { status: 'all', query: m }],
    ] as const) {
      await search(page, query);
      const listed = (await call('list_issues', { project: p.projectSlug, ...args })).issues as Array<{ shortId: string }>;
      expect(listed.length).toBeGreaterThan(0);
      expect(await shortIdsOn(page)).toEqual(listed.map((issue) => issue.shortId));
    }
    await checked.recheck('parity-list-issues-searched');
  });
  expect(await shortIdsOf('list_issues', { project: p.projectSlug, query: m })).toHaveLength(2);
}

async function getIssueContextRow(): Promise<void> {
  const issue = await issueOf(`Checkout ${MARK.context} failed`);
  const context = (args: Record<string, unknown> = {}) => call('get_issue_context', { shortId: issue.shortId, ...args });
  // The issue is counted before its events are stored: wait for the latest, from staging.
  const before = await eventually(async () => {
    const answer = await context();
    return answer.untrustedData.environment === 'staging' ? answer : undefined;
  }, 'the latest event, from staging');
  await onPage(admin, issuePath(issue.shortId), 'parity-issue-context', async (page, checked) => {
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(before.untrustedData.title);
    await expect(statusOn(page)).resolves.toBe(before.issue.status ?? 'unresolved');
    await expect(page.locator('.issue-head-meta .level').textContent()).resolves.toBe(before.issue.level);
    await expect(fact(page, 'Events')).resolves.toBe(String(before.issue.count));
    await expect(fact(page, 'Users')).resolves.toBe(String(before.issue.userCount));
    await expect(page.locator('.event-id').textContent()).resolves.toBe(before.latestEvent.eventId);
    expect(before.issue.status).toBe('unresolved');

    // The latest event from one environment: the environment's link in Details, and the tool's input.
    const fromAgents = await context({ environment: 'agents' });
    expect(fromAgents.latestEvent.eventId).not.toBe(before.latestEvent.eventId);
    await Promise.all([
      page.waitForURL(/\?environment=agents$/),
      page.getByRole('link', { name: 'Latest event from agents' }).click(),
    ]);
    await checked.recheck('parity-issue-context-environment');
    await expect(page.locator('.event-id').textContent()).resolves.toBe(fromAgents.latestEvent.eventId);
    await expect(page.locator('#event-heading').textContent()).resolves.toBe('Latest event from agents');
    // Its "Copy as MCP call" asks for the same.
    expect(JSON.parse((await page.locator('#copy-copy-as-mcp-call').textContent())!).params.arguments).toEqual({
      shortId: issue.shortId,
      environment: 'agents',
    });

    // Resolved from the page: get_issue_context reads it resolved, by this person.
    await Promise.all([page.waitForURL(/\?done=resolve$/), page.getByRole('button', { name: 'Resolve', exact: true }).click()]);
    await checked.recheck('parity-issue-context-resolved');
    const after = await context();
    expect(after.issue.status).toBe('resolved');
    expect(after.resolution.by).toBe(admin.email);
    await expect(statusOn(page)).resolves.toBe(after.issue.status);
  });
}

async function updateIssueRow(): Promise<void> {
  const issue = await issueOf(`Plain message ${MARK.update}`);
  const path = issuePath(issue.shortId);
  const resolved = await call('update_issue', { shortId: issue.shortId, action: 'resolve', commit: 'a1b2c3d', note: 'parity' });
  expect(resolved.status).toBe('resolved');
  await onPage(admin, path, 'parity-update-issue-resolved', async (page) => {
    await expect(statusOn(page)).resolves.toBe('resolved');
    const resolution = await page.getByRole('region', { name: 'Resolution' }).textContent();
    expect(resolution).toContain(`Resolved by${resolved.resolution.by} (agent token)`);
    expect(resolution).toContain('Commita1b2c3d');
    expect(resolution).toContain('Noteparity');
  });
  const snoozed = await call('update_issue', { shortId: issue.shortId, action: 'snooze', snoozeMinutes: 90 });
  expect(snoozed.status).toBe('snoozed');
  await onPage(admin, path, 'parity-update-issue-snoozed', async (page) => {
    await expect(statusOn(page)).resolves.toBe('snoozed');
    // The page takes the tool's actions too, read back by the tool: unresolve (a snoozed
    // issue's Stop snoozing), then ignore.
    await Promise.all([page.waitForURL(/\?done=unresolve$/), page.getByRole('button', { name: 'Stop snoozing' }).click()]);
    await expect(statusOn(page)).resolves.toBe('unresolved');
    expect((await call('get_issue_context', { shortId: issue.shortId })).issue.status).toBe('unresolved');
    await Promise.all([page.waitForURL(/\?done=ignore$/), page.getByRole('button', { name: 'Ignore', exact: true }).click()]);
    expect((await call('get_issue_context', { shortId: issue.shortId })).issue.status).toBe('ignored');
  });
}

async function bulkUpdateIssuesRow(): Promise<void> {
  const m = MARK.bulk;
  // The tool ignores the warnings matching the search; the page's Ignored tab shows the same.
  const dry = await call('bulk_update_issues', {
    project: p.projectSlug,
    level: 'warning',
    query: m,
    action: 'ignore',
    dryRun: true,
  });
  const done = await call('bulk_update_issues', { project: p.projectSlug, level: 'warning', query: m, action: 'ignore' });
  expect(done).toMatchObject({ matched: 1, changed: 1, shortIds: dry.shortIds });
  await onPage(admin, issuesPath({ status: 'ignored', query: m }), 'parity-bulk-ignored', async (page, checked) => {
    expect(await shortIdsOn(page)).toEqual(done.shortIds);

    // The page resolves every unresolved issue of the search at once; the tool reads them resolved.
    await page.getByRole('navigation', { name: 'Status' }).getByRole('link', { name: 'Unresolved', exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('status') !== 'ignored');
    const ticked = await shortIdsOn(page);
    expect(ticked).toEqual(await shortIdsOf('list_issues', { project: p.projectSlug, query: m }));
    expect(ticked).toHaveLength(1);
    await page.getByLabel('Select all on this page').check();
    await Promise.all([page.waitForURL(/done=resolve/), page.getByRole('button', { name: 'Resolve', exact: true }).click()]);
    await checked.recheck('parity-bulk-resolved');
    expect(await shortIdsOf('list_issues', { project: p.projectSlug, status: 'resolved', query: m })).toEqual(ticked);
    expect(await shortIdsOf('list_issues', { project: p.projectSlug, query: m })).toEqual([]);
  });
}

async function checkResolutionRow(): Promise<void> {
  const issue = await issueOf(`Checkout ${MARK.resolution} failed`);
  const path = issuePath(issue.shortId);
  const same = async (
    status: string,
    screenshot: string,
    act?: (page: Page, verdict: ToolCall['structured']) => Promise<void>,
  ) => {
    const verdict = await call('check_resolution', { shortId: issue.shortId });
    expect(verdict.status).toBe(status);
    await onPage(admin, path, screenshot, async (page) => {
      const panel = page.getByRole('region', { name: 'Resolution' });
      await expect(panel.locator('.verdict .badge').getAttribute('class')).resolves.toContain(`verdict-${status}`);
      await expect(panel.locator('.verdict > span:last-child').textContent()).resolves.toBe(verdict.explanation);
      await act?.(page, verdict);
    });
  };
  await same('no_resolution', 'parity-resolution-none', async (page) => {
    await page.locator('summary', { hasText: 'Resolve with…' }).click();
    await page.getByLabel('Release').fill('shop@9.9.9');
    await Promise.all([
      page.waitForURL(/\?done=resolve$/),
      page.locator('.action-popover').getByRole('button', { name: 'Resolve' }).click(),
    ]);
  });
  await same('awaiting_release', 'parity-resolution-awaiting');
  await call('update_issue', { shortId: issue.shortId, action: 'unresolve' });
  await call('update_issue', { shortId: issue.shortId, action: 'resolve' });
  await same('held', 'parity-resolution-held');
  await sendScenario(p.dsn, 'checkout-error', MARK.resolution, FIRST);
  await eventually(
    async () => ((await issueOf(`Checkout ${MARK.resolution} failed`)).status === 'unresolved' ? true : undefined),
    'the regression',
  );
  // The event that brought it back is stored after the issue reopens.
  await eventually(
    async () => ((await call('check_resolution', { shortId: issue.shortId })).regressingEvent ? true : undefined),
    'the regressing event',
  );
  await same('regressed', 'parity-resolution-regressed', async (page, verdict) => {
    const regressing = page.getByRole('region', { name: 'Resolution' }).getByRole('link', { name: /^[0-9a-f]{32}$/ });
    await expect(regressing.textContent()).resolves.toBe(verdict.regressingEvent.eventId);
  });
}

async function whatsNewRow(): Promise<void> {
  const m = MARK.release;
  const regressed = await issueOf(`Checkout ${m} failed`);
  await call('update_issue', { shortId: regressed.shortId, action: 'resolve', release: FIRST });
  await sendScenario(p.dsn, 'checkout-error', m, SECOND);
  await sendScenario(p.dsn, 'message', m, SECOND);
  const fresh = await waitForIssue(server, p, `Plain message ${m}`);
  await eventually(
    async () => ((await issueOf(`Checkout ${m} failed`)).status === 'unresolved' ? true : undefined),
    'the regression',
  );
  const news = await call('whats_new', { project: p.projectSlug, release: SECOND });
  const withReason = (reason: string) =>
    (news.issues as Array<{ shortId: string; reasons: string[] }>)
      .filter((i) => i.reasons.includes(reason))
      .map((i) => i.shortId);
  expect(withReason('new')).toEqual([fresh.shortId]);
  expect(withReason('regressed')).toEqual([regressed.shortId]);
  const path = `/organizations/${p.organization}/projects/${p.projectSlug}/releases`;
  await onPage(admin, path, 'parity-whats-new-releases', async (page, checked) => {
    await Promise.all([
      page.waitForURL((url) => url.pathname.endsWith(`/releases/${encodeURIComponent(SECOND)}`)),
      page.getByRole('link', { name: SECOND, exact: true }).click(),
    ]);
    await checked.recheck('parity-whats-new-release');
    const shortIds = (name: RegExp) => page.getByRole('region', { name }).locator('.release-short-id').allTextContents();
    expect(sorted(await shortIds(/^New in this release/))).toEqual(sorted(withReason('new')));
    expect(sorted(await shortIds(/^Regressed in this release/))).toEqual(sorted(withReason('regressed')));
  });

  // Without a release: what needs attention in the last day across the token's projects, on the
  // What's new page (reached from the main navigation), issue for issue, reason for reason.
  await onPage(admin, `/organizations/${p.organization}/issues`, 'parity-whats-new-issues', async (page, checked) => {
    await Promise.all([
      page.waitForURL((url) => url.pathname.endsWith('/whats-new')),
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: "What's new" }).click(),
    ]);
    await checked.recheck('parity-whats-new-window');
    const recent = await call('whats_new', { sinceMinutes: 1440 });
    expect(recent.truncated).toBeUndefined();
    const listed = (recent.issues as Array<{ shortId: string; reasons: string[] }>).map((i) => [i.shortId, i.reasons]);
    expect(listed).toContainEqual([regressed.shortId, ['regressed', 'new']]);
    expect(listed).toContainEqual([fresh.shortId, ['new']]);
    const rows = await page
      .locator('tr.whats-new-row')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector('.whats-new-short-id')!.textContent,
          Array.from(tr.querySelectorAll('.reason-list .reason-badge'), (b) => b.textContent),
        ]),
      );
    expect(rows).toEqual(listed);
    const counts = Object.entries(recent.counts as Record<string, number>).map(([reason, n]) => `${n} ${reason}`);
    await expect(page.locator('#whats-new-summary').textContent()).resolves.toContain(`: ${counts.join(', ')}.`);
  });
}

async function searchLogsRow(): Promise<void> {
  const m = MARK.logs;
  await onPage(
    admin,
    `/organizations/${p.organization}/logs?project=${p.projectSlug}`,
    'parity-search-logs',
    async (page, checked) => {
      for (const [query, order, args] of [
        [m, 'newest', { query: m }],
        [`level:warning ${m}`, 'newest', { level: 'warning', query: m }],
        [`route:/pay ${m}`, 'newest', { query: m, attributes: { route: '/pay' } }],
        [m, 'oldest', { query: m, sort: 'oldest' }],
      ] as const) {
        const box = page.getByRole('searchbox', { name: 'Search' });
        await box.fill(query);
        await page.getByLabel('Order').selectOption(order);
        await Promise.all([
          page.waitForURL(
            (url) => url.searchParams.get('query') === query && (url.searchParams.get('sort') ?? 'newest') === order,
          ),
          box.press('Enter'),
        ]);
        const found = await call('search_logs', { project: p.projectSlug, ...args });
        const records = (found.untrustedData.logs as Array<{ timestamp: string; level: string; body: string }>).map((l) => [
          l.timestamp,
          l.level,
          l.body,
        ]);
        expect(records.length).toBeGreaterThan(0);
        const rows = await page
          .locator('tr.log-row')
          .evaluateAll((trs) =>
            trs.map((tr) => [
              tr.querySelector('time')!.getAttribute('datetime'),
              tr.querySelector('.level-badge')!.textContent,
              tr.querySelector('.log-message summary')!.textContent,
            ]),
          );
        expect(rows).toEqual(records);
        // The page's own "Copy as search_logs call" answers the same records.
        const copied = JSON.parse((await page.locator('#copy-copy-as-search-logs-call').textContent())!);
        const again = await call('search_logs', copied.params.arguments);
        expect((again.untrustedData.logs as Array<{ body: string }>).map((l) => l.body)).toEqual(records.map((r) => r[2]));
      }
      await checked.recheck('parity-search-logs-searched');
    },
  );
}

// ---- Helpers ---------------------------------------------------------------------------------

/** A tool's answer as tests read it (structured content), failing on a tool error. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolCall['structured']> {
  const result = await agent.call(name, args);
  expect(result.isError, `${name}: ${result.text}`).toBe(false);
  return result.structured;
}

async function shortIdsOf(tool: string, args: Record<string, unknown>): Promise<string[]> {
  return ((await call(tool, args)).issues as Array<{ shortId: string }>).map((issue) => issue.shortId);
}

/** Opens a page as the person (held to browser.ts's bar), runs `use`, and closes it. */
async function onPage(
  person: { client: FormClient },
  path: string,
  screenshot: string,
  use: (page: Page, checked: { recheck(screenshot: string): Promise<void> }) => Promise<void>,
): Promise<void> {
  const checked = await openCheckedPage(browser, `${server.url}${path}`, { cookies: person.client.jar, screenshot });
  try {
    expect(checked.response.status()).toBe(200);
    await use(checked.page, checked);
  } finally {
    await checked.close();
  }
}

function issuesPath(params: Record<string, string> = {}): string {
  return `/organizations/${p.organization}/issues?${new URLSearchParams({ project: p.projectSlug, ...params })}`;
}

function issuePath(shortId: string): string {
  return `/organizations/${p.organization}/issues/${shortId}`;
}

/** Types a search into the Issues page's Search field and submits it, as a person would. */
async function search(page: Page, query: string): Promise<void> {
  await page.getByLabel('Search').fill(query);
  await Promise.all([
    page.waitForURL((url) => url.searchParams.get('query') === query),
    page.getByLabel('Search').press('Enter'),
  ]);
}

function shortIdsOn(page: Page): Promise<string[]> {
  return page.locator('tr[data-issue-row] .issue-short-id').allTextContents();
}

function statusOn(page: Page): Promise<string | null> {
  return page.locator('.issue-head-meta .status').textContent();
}

/** A fact of the issue page's Details (Events, Users, ...). */
function fact(page: Page, name: string): Promise<string | null> {
  return page
    .getByRole('region', { name: 'Details' })
    .locator(`xpath=.//dt[normalize-space()="${name}"]/following-sibling::dd[1]`)
    .textContent();
}

/** The one issue whose title contains `text`, as the read API has it now. */
async function issueOf(text: string): Promise<IssueJson> {
  const issues = (await listIssues(server, p)).filter((issue) => issue.title.includes(text));
  expect(issues).toHaveLength(1);
  return issues[0]!;
}

/** The real SDK as the person installing it runs it: the install guides' test event, or a real error. */
async function installCheck(dsn: string, kind: 'test-event' | 'error'): Promise<void> {
  const result = await runProcess(process.execPath, ['install-check.cjs', dsn, kind], {
    cwd: join(REPO_ROOT, 'test', 'clients', 'node'),
  });
  expect(result.code, result.stderr).toBe(0);
}

function sorted<T>(items: T[]): T[] {
  return [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}
