// The Issues page in a real browser, over issues made by real events sent to the envelope
// endpoint: the bar every page clears (light, dark, narrow), each filter, the search and a bad
// search's error, each sort, paging, the keyboard, bulk resolve of every issue matching (more
// than a page, confirmed with the count first), and delete: refused to a member at the HTTP
// level, done by an admin with the typed confirmation. Results are read back over the REST API.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { listIssues } from '../../support/issues.ts';
import { envelopeUrlOf, eventEnvelope, newEventId, rawRequest } from '../../support/raw-http.ts';
import { eventually, provision, type Provisioned, type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

let server: StandaloneServer;
let browser: Browser;
let admin: Awaited<ReturnType<typeof signedInPerson>>;
let member: Awaited<ReturnType<typeof signedInPerson>>;
let p: Provisioned;

const ISSUES = '/organizations/default/issues';
const NOW = Date.now() / 1000;
const HOUR = 3600;

beforeAll(async () => {
  ({ server, browser } = await startWithBrowser());
  admin = await signedInPerson(server, 'admin');
  member = await signedInPerson(server, 'member');
});
afterAll(() => stopWithBrowser(server, browser));

async function send(event: Record<string, unknown>): Promise<void> {
  const response = await rawRequest(envelopeUrlOf(server, p), { body: eventEnvelope({ event_id: newEventId(), ...event }) });
  if (response.status !== 200) throw new Error(`envelope answered ${response.status}`);
}

/** Opens the Issues page (held to the bar of browser.ts) as the admin unless told otherwise. */
function open(
  query: string,
  screenshot: string,
  options: { cookies?: Record<string, string>; colorScheme?: 'light' | 'dark' } = {},
) {
  return openCheckedPage(browser, `${server.url}${ISSUES}${query}`, { screenshot, cookies: admin.client.jar, ...options });
}

const titles = (page: Page) => page.locator('a.issue-title').allTextContents();

describe('an organization without a project', () => {
  it('says so and leads to the Projects page', async () => {
    const checked = await open('', 'issues-no-project');
    try {
      expect(checked.response.status()).toBe(200);
      await expect(checked.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('No projects yet');
      expect(await checked.page.getByRole('link', { name: 'Go to Projects' }).getAttribute('href')).toBe(
        '/organizations/default/projects',
      );
    } finally {
      await checked.close();
    }
  });
});

describe('the Issues page', () => {
  beforeAll(async () => {
    p = await provision(server, 'Shop');
    const sends: Array<Record<string, unknown>> = [];
    for (let n = 1; n <= 30; n++) {
      sends.push({
        message: `Bulk failure ${n}`,
        fingerprint: [`bulk-${n}`],
        level: 'error',
        environment: 'production',
        timestamp: NOW - 2 * HOUR - n,
      });
    }
    // Three issues with distinct orders by each sort key (environment "sorting"):
    // last seen beta, alpha, gamma; first seen beta, gamma, alpha; events alpha 5, beta 3,
    // gamma 1; users beta 3, alpha 1, gamma 0.
    const alpha = {
      message: 'Sortable alpha',
      fingerprint: ['alpha'],
      level: 'warning',
      environment: 'sorting',
      user: { id: 'u1' },
    };
    sends.push({ ...alpha, timestamp: NOW - 3 * 24 * HOUR });
    for (let n = 0; n < 4; n++) sends.push({ ...alpha, timestamp: NOW - 600 - n });
    for (let n = 0; n < 3; n++) {
      sends.push({
        message: 'Sortable beta',
        fingerprint: ['beta'],
        level: 'error',
        environment: 'sorting',
        user: { id: `u${n + 1}` },
        timestamp: NOW - 300 + n * 60,
      });
    }
    sends.push({
      message: 'Sortable gamma',
      fingerprint: ['gamma'],
      level: 'info',
      environment: 'sorting',
      release: '2.0',
      timestamp: NOW - 2 * 24 * HOUR,
    });
    sends.push({
      message: 'Delete me one',
      fingerprint: ['delete-1'],
      level: 'error',
      environment: 'doomed',
      timestamp: NOW - 7200,
    });
    sends.push({
      message: 'Delete me two',
      fingerprint: ['delete-2'],
      level: 'error',
      environment: 'doomed',
      timestamp: NOW - 7201,
    });
    for (const event of sends) await send(event);
    await eventually(async () => {
      const issues = await listIssues(server, p, 'status=all&limit=100');
      const events = issues.reduce((sum, issue) => sum + issue.count, 0);
      return issues.length === 35 && events === sends.length ? issues : undefined;
    }, '35 issues with every event counted');
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`renders cleanly in the ${colorScheme} scheme, unresolved issues first page of 25`, async () => {
      const checked = await open('', `issues-${colorScheme}`, { colorScheme });
      try {
        const { page } = checked;
        expect(checked.response.status()).toBe(200);
        expect(await page.locator('tr[data-issue-row]').count()).toBe(25);
        expect(await page.getByRole('navigation', { name: 'Status' }).locator('[aria-current=page]').textContent()).toBe(
          'Unresolved',
        );
        expect(await page.getByLabel('Project').inputValue()).toBe(p.projectSlug);
        await expect(page.getByText('25 shown of 35 matching').count()).resolves.toBe(1);
        // Newest first: beta was seen last.
        expect((await titles(page))[0]).toBe('Sortable beta');
        const row = page.locator('tr[data-issue-row]').first();
        await expect(row.locator('.level-badge').textContent()).resolves.toBe('error');
        await expect(row.getByRole('img').getAttribute('aria-label')).resolves.toBe('3 events in the last 24 hours');
        expect(await row.locator('time').first().getAttribute('title')).toMatch(/\d{4}/);
      } finally {
        await checked.close();
      }
    });
  }

  it('is usable at 390px wide', async () => {
    const checked = await open('?query=Sortable', 'issues-narrow');
    try {
      const { page } = checked;
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('issues-narrow');
      // The page itself does not scroll sideways; only the table may, inside its box.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await expect(page.locator('a.issue-title').first().isVisible()).resolves.toBe(true);
    } finally {
      await checked.close();
    }
  });

  it('filters by level, environment, first release and time window, as GET fields kept in the address', async () => {
    const checked = await open('?environment=sorting', 'issues-filter-environment');
    try {
      const { page } = checked;
      expect((await titles(page)).sort()).toEqual(['Sortable alpha', 'Sortable beta', 'Sortable gamma']);
      await page.getByLabel('Level').selectOption('warning');
      await Promise.all([page.waitForURL(/level=warning/), page.getByRole('button', { name: 'Apply' }).click()]);
      expect(new URL(page.url()).searchParams.get('environment')).toBe('sorting');
      expect(await titles(page)).toEqual(['Sortable alpha']);
      await page.getByLabel('Level').selectOption('');
      await page.getByLabel('First release').selectOption('2.0');
      await Promise.all([page.waitForURL(/release=2\.0/), page.getByRole('button', { name: 'Apply' }).click()]);
      expect(await titles(page)).toEqual(['Sortable gamma']);
      await page.getByLabel('First release').selectOption('');
      await page.getByLabel('Last seen').selectOption('24h');
      await Promise.all([page.waitForURL(/window=24h/), page.getByRole('button', { name: 'Apply' }).click()]);
      expect(await titles(page)).toEqual(['Sortable beta', 'Sortable alpha']);
      await checked.recheck('issues-filtered');
    } finally {
      await checked.close();
    }
  });

  it('searches with the one search syntax, and shows a bad search its error, keeping the text', async () => {
    const checked = await open('', 'issues-search');
    try {
      const { page } = checked;
      await page.getByLabel('Search').fill('level:info Sortable');
      await Promise.all([page.waitForURL(/query=/), page.getByLabel('Search').press('Enter')]);
      expect(await titles(page)).toEqual(['Sortable gamma']);
      await page.getByLabel('Search').fill('Sortable level:loud');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().includes('query=')),
        page.getByLabel('Search').press('Enter'),
      ]);
      await page.waitForLoadState('load');
      expect(response.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('"level:loud"');
      expect(await page.getByLabel('Search').inputValue()).toBe('Sortable level:loud');
      expect(await titles(page)).toEqual([]);
      await checked.recheck('issues-search-error');
    } finally {
      await checked.close();
    }
  });

  it('keeps the tab chosen when a search with an is: term is changed', async () => {
    const checked = await open('?status=all&query=is%3Aresolved', 'issues-search-tab');
    try {
      const { page } = checked;
      await page.getByLabel('Search').fill('Sortable');
      await Promise.all([page.waitForURL(/query=Sortable/), page.getByLabel('Search').press('Enter')]);
      expect(new URL(page.url()).searchParams.get('status')).toBe('all');
      expect((await titles(page)).sort()).toEqual(['Sortable alpha', 'Sortable beta', 'Sortable gamma']);
    } finally {
      await checked.close();
    }
  });

  it('sorts by last seen, first seen, events and users', async () => {
    const expected = {
      lastSeen: ['Sortable beta', 'Sortable alpha', 'Sortable gamma'],
      firstSeen: ['Sortable beta', 'Sortable gamma', 'Sortable alpha'],
      events: ['Sortable alpha', 'Sortable beta', 'Sortable gamma'],
      users: ['Sortable beta', 'Sortable alpha', 'Sortable gamma'],
    };
    for (const [sort, order] of Object.entries(expected)) {
      const checked = await open(`?environment=sorting&sort=${sort}`, `issues-sort-${sort}`);
      try {
        expect(await titles(checked.page)).toEqual(order);
        expect(await checked.page.getByLabel('Sort by').inputValue()).toBe(sort);
      } finally {
        await checked.close();
      }
    }
  });

  it('pages with a cursor: 25, then the rest, then back to the first page', async () => {
    const checked = await open('?query=Bulk', 'issues-page-1');
    try {
      const { page } = checked;
      const first = await titles(page);
      expect(first).toHaveLength(25);
      await Promise.all([page.waitForURL(/cursor=/), page.getByRole('link', { name: 'Next page' }).click()]);
      const second = await titles(page);
      expect(second).toHaveLength(5);
      expect(new Set([...first, ...second]).size).toBe(30);
      expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
      await checked.recheck('issues-page-2');
      await Promise.all([
        page.waitForURL((url) => !url.searchParams.has('cursor')),
        page.getByRole('link', { name: 'First page' }).click(),
      ]);
      expect(await titles(page)).toEqual(first);
    } finally {
      await checked.close();
    }
  });

  it('answers the keyboard: j/k move, x selects, ? lists the keys, o opens, r resolves the selection', async () => {
    const checked = await open('?environment=sorting', 'issues-keyboard');
    try {
      const { page } = checked;
      const focusedTitle = () => page.locator('tr.issue-row-focused a.issue-title').textContent();
      await page.keyboard.press('j');
      await expect(focusedTitle()).resolves.toBe('Sortable beta');
      await page.keyboard.press('j');
      await expect(focusedTitle()).resolves.toBe('Sortable alpha');
      await page.keyboard.press('k');
      await expect(focusedTitle()).resolves.toBe('Sortable beta');
      await page.keyboard.press('x');
      expect(
        await page.getByLabel(/^Select SHOP-/).evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).checked)),
      ).toEqual([true, false, false]);
      await page.keyboard.press('?');
      await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' }).isVisible()).resolves.toBe(true);
      await checked.recheck('issues-keys-help');
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog').count()).resolves.toBe(0);
      // Typing in the search box is not a shortcut.
      await page.getByLabel('Search').fill('jjx');
      await expect(focusedTitle()).resolves.toBe('Sortable beta');
      await page.getByLabel('Search').fill('');
      await page.getByLabel('Search').blur();

      // Beta is ticked; tick alpha too, and resolve both.
      await page.keyboard.press('j');
      await expect(focusedTitle()).resolves.toBe('Sortable alpha');
      await page.keyboard.press('x');
      await Promise.all([page.waitForURL(/done=resolve/), page.keyboard.press('r')]);
      await expect(page.getByRole('status').textContent()).resolves.toBe('Resolved 2 issues.');
      expect(await titles(page)).toEqual(['Sortable gamma']);
      const resolved = await listIssues(server, p, 'status=resolved&limit=100');
      expect(resolved.map((i) => i.title).sort()).toEqual(['Sortable alpha', 'Sortable beta']);
      await checked.recheck('issues-after-keyboard-resolve');

      await page.keyboard.press('j');
      const href = await page.locator('tr.issue-row-focused a.issue-title').getAttribute('href');
      expect(href).toMatch(/^\/organizations\/default\/issues\/SHOP-\d+$/);
      await Promise.all([page.waitForURL((url) => url.pathname === href), page.keyboard.press('o')]);
    } finally {
      await checked.close();
    }
  });

  it('snoozes the focused issue with s for the time chosen, and ignores it with i', async () => {
    const checked = await open('?environment=sorting', 'issues-keyboard-snooze');
    try {
      const { page } = checked;
      await page.getByLabel('Snooze for').selectOption('360');
      await page.getByLabel('Snooze for').blur();
      await page.keyboard.press('j');
      await Promise.all([page.waitForURL(/done=snooze/), page.keyboard.press('s')]);
      await expect(page.getByRole('status').textContent()).resolves.toBe('Snoozed 1 issue.');
      const [snoozed] = await listIssues(server, p, 'status=snoozed&limit=100');
      expect(snoozed?.title).toBe('Sortable gamma');

      await Promise.all([page.waitForURL(/status=snoozed/), page.getByRole('link', { name: 'Snoozed' }).click()]);
      expect(await titles(page)).toEqual(['Sortable gamma']);
      // Six hours from now, less the seconds the test took.
      await expect(page.locator('.issue-status').textContent()).resolves.toMatch(/^snoozed, wakes in (5|6) h$/);
      await checked.recheck('issues-snoozed');
      await page.keyboard.press('j');
      await Promise.all([page.waitForURL(/done=ignore/), page.keyboard.press('i')]);
      expect((await listIssues(server, p, 'status=ignored&limit=100')).map((i) => i.title)).toEqual(['Sortable gamma']);
    } finally {
      await checked.close();
    }
  });

  it('answers a cursor edited by hand with the reason above the list', async () => {
    const checked = await open('?cursor=garbage', 'issues-bad-cursor');
    try {
      expect(checked.response.status()).toBe(400);
      await expect(checked.page.getByRole('alert').textContent()).resolves.toContain('invalid cursor');
    } finally {
      await checked.close();
    }
  });

  it('resolves every issue matching the filter, beyond the page, after showing how many', async () => {
    const checked = await open('?query=Bulk', 'issues-bulk');
    try {
      const { page } = checked;
      const allMatching = page.getByLabel('Select all 30 issues matching this filter');
      await expect(allMatching.isVisible()).resolves.toBe(false);
      await page.getByLabel('Select all on this page').check();
      await expect(allMatching.isVisible()).resolves.toBe(true);
      await allMatching.check();
      await Promise.all([page.waitForURL(/issues\/bulk$/), page.getByRole('button', { name: 'Resolve', exact: true }).click()]);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        `Resolve 30 issues matching project ${p.projectSlug}, status unresolved, search “Bulk”?`,
      );
      // Nothing changed yet.
      expect(await listIssues(server, p, 'status=resolved&limit=100&query=Bulk')).toHaveLength(0);
      await checked.recheck('issues-bulk-confirm');
      await Promise.all([page.waitForURL(/done=resolve/), page.getByRole('button', { name: 'Resolve 30 issues' }).click()]);
      await expect(page.getByRole('status').textContent()).resolves.toBe('Resolved 30 issues.');
      expect(await listIssues(server, p, 'status=resolved&limit=100&query=Bulk')).toHaveLength(30);
      expect(await listIssues(server, p, 'status=unresolved&limit=100&query=Bulk')).toHaveLength(0);
      await checked.recheck('issues-bulk-done');
    } finally {
      await checked.close();
    }
  });

  it('refuses delete to a member at the HTTP level and shows them no delete button', async () => {
    const path = `${ISSUES}?environment=doomed`;
    const { html } = await member.client.get(path);
    const id = /name="issue" value="(\d+)"/.exec(html)?.[1];
    expect(id).toBeDefined();
    const csrf = await member.client.token(path);
    const refused = await member.client.post(`${ISSUES}/bulk`, {
      csrf,
      project: p.projectSlug,
      action: 'delete',
      issue: id!,
      confirm: 'yes',
      typed: 'delete',
    });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('admin');
    expect(await listIssues(server, p, 'status=all&limit=100&query=Delete')).toHaveLength(2);
    // The same form may resolve: the member's role has triage.
    const checked = await open('?environment=doomed', 'issues-member', { cookies: member.client.jar });
    try {
      await expect(checked.page.getByRole('button', { name: 'Resolve', exact: true }).count()).resolves.toBe(1);
      await expect(checked.page.getByRole('button', { name: 'Delete' }).count()).resolves.toBe(0);
    } finally {
      await checked.close();
    }
  });

  it('deletes nothing when the confirmation typed nothing, whatever the form posted', async () => {
    const path = `${ISSUES}?environment=doomed`;
    const { html } = await admin.client.get(path);
    const id = /name="issue" value="(\d+)"/.exec(html)?.[1];
    expect(id).toBeDefined();
    const form = { csrf: await admin.client.token(path), project: p.projectSlug, action: 'delete', issue: id!, confirm: 'yes' };
    // Before, neither typed nor count compared '' with '' and deleted.
    for (const posted of [{}, { count: '5', typed: '5' }] as Array<Record<string, string>>) {
      const refused = await admin.client.post(`${ISSUES}/bulk`, { ...form, ...posted });
      expect(refused.status).toBe(400);
      expect(refused.html).toContain('nothing was deleted');
    }
    expect(await listIssues(server, p, 'status=all&limit=100&query=Delete')).toHaveLength(2);
  });

  it('deletes no issue matching when more match than the confirmation showed, and says how many do now', async () => {
    const flood = (n: number) =>
      send({ message: `Flood ${n}`, fingerprint: [`flood-${n}`], level: 'error', timestamp: NOW - 60 });
    const flooded = () => listIssues(server, p, 'status=all&limit=100&query=Flood');
    await flood(1);
    await flood(2);
    await eventually(async () => ((await flooded()).length === 2 ? true : undefined), 'two flood issues');
    // Confirmed as the page showed it: 2. Before, the third that arrived meanwhile was deleted too.
    const form = {
      csrf: await admin.client.token(ISSUES),
      project: p.projectSlug,
      query: 'Flood',
      action: 'delete',
      scope: 'all',
      confirm: 'yes',
      count: '2',
      typed: '2',
    };
    await flood(3);
    await eventually(async () => ((await flooded()).length === 3 ? true : undefined), 'a third flood issue');
    const refused = await admin.client.post(`${ISSUES}/bulk`, form);
    expect(refused.status).toBe(409);
    expect(refused.html).toContain(
      '3 issues match now, not the 2 shown before: check the number and confirm again; nothing was deleted.',
    );
    expect(await flooded()).toHaveLength(3);
    const deleted = await admin.client.post(`${ISSUES}/bulk`, { ...form, count: '3', typed: 'delete' });
    expect(deleted.status).toBe(303);
    expect(await flooded()).toHaveLength(0);
  });

  it('deletes for an admin once the number or the word delete is typed', async () => {
    const checked = await open('?environment=doomed', 'issues-delete');
    try {
      const { page } = checked;
      await page.getByLabel('Select all on this page').check();
      await Promise.all([page.waitForURL(/issues\/bulk$/), page.getByRole('button', { name: 'Delete' }).click()]);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Delete 2 issues?');
      await page.getByLabel('Type 2 or the word delete to confirm').fill('3');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Delete 2 issues' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(refused.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('nothing was deleted');
      expect(await listIssues(server, p, 'status=all&limit=100&query=Delete')).toHaveLength(2);
      await checked.recheck('issues-delete-refused');
      await page.getByLabel('Type 2 or the word delete to confirm').fill('2');
      await Promise.all([page.waitForURL(/done=delete/), page.getByRole('button', { name: 'Delete 2 issues' }).click()]);
      await expect(page.getByRole('status').textContent()).resolves.toBe('Deleted 2 issues.');
      expect(await listIssues(server, p, 'status=all&limit=100&query=Delete')).toHaveLength(0);
    } finally {
      await checked.close();
    }
  });
});
