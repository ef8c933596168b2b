// A project with more than the pages and lists show at once. "Select all matching" over more
// issues than one bulk action takes (10,000): the confirmation says so and counts what the button
// does, the action takes the first 10,000 in the list's order, and the notice after it says more
// matched; bulk_update_issues says the same to an agent. 1,001 stored source files: the Source
// maps page shows the newest 200 and says of how many, `errata listsourcemaps` the newest 1,000.
// The rows are written into the stopped server's database with SQL (ingesting and uploading them
// would take minutes); everything after is the real server, CLI and browser.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { PGliteClient } from '../../../services/adapters/pglite/pglite-client.ts';
import { embeddedDatabaseDir } from '../../../services/runtime/embedded/database-dir.ts';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { connectAgent } from '../../support/mcp-client.ts';
import {
  api,
  initializedDataDir,
  provision,
  runCli,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../../support/standalone-server.ts';

const ISSUES = 10_001;
const MAP_FILES = 1_001;
let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;

beforeAll(async () => {
  const dataDir = await initializedDataDir();
  const first = await startServer({ dataDir });
  p = await provision(first, 'Flooded');
  expect(await first.stop()).toBe(0);
  const db = await PGliteClient.open(embeddedDatabaseDir(dataDir));
  try {
    await db.query(
      `INSERT INTO issues (project_id, short_number, title, level, type, first_seen, last_seen, times_seen)
       SELECT $1, g, 'FloodError: number ' || g, 'error', 'error', now(), now() - g * interval '1 second', 1
       FROM generate_series(1, $2::int) g`,
      [p.projectId, ISSUES],
    );
    await db.query(`UPDATE projects SET issue_counter = $2 WHERE id = $1`, [p.projectId, ISSUES]);
    await db.query(
      `INSERT INTO source_map_artifacts (project_id, debug_id, type, url, blob_key, size_bytes, bundle_checksum, uploaded_at)
       SELECT $1::int, lpad(to_hex(g), 8, '0') || '-0000-4000-8000-000000000000', 'source_map', '~/build-' || g || '.js.map',
         'projects/x/maps/' || g, 1000, repeat('a', 40), now() - g * interval '1 minute'
       FROM generate_series(1, $2::int) g`,
      [p.projectId, MAP_FILES],
    );
  } finally {
    await db.close();
  }
  server = await startServer({ dataDir });
  browser = await launchChromium(inject('chromium'));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) await stopAndRemove(server);
});

const unresolvedIssues = async () => {
  const path = `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/issues?status=unresolved&limit=100`;
  const answer = await api<{ issues: Array<{ title: string }> }>(server, path, p.token);
  return answer.body.issues;
};

describe('select all matching, over more issues than one action takes', () => {
  it('is what bulk_update_issues says too: a dry run lists the first 10,000 and says more matched', async () => {
    const agent = await connectAgent(server.url, p.token);
    try {
      const dry = await agent.call('bulk_update_issues', { project: p.projectSlug, action: 'resolve', dryRun: true });
      expect(dry.isError, dry.text).toBe(false);
      expect(dry.structured).toMatchObject({ matched: 10_000, changed: 0, moreShortIds: 9_950, moreMatching: true });
      expect(dry.text.split('\n')[0]).toMatch(
        new RegExp(
          `^resolve \\(dry run, nothing changed\\): more than 10,000 issues matched in ${p.projectSlug}, the first 10,000 listed \\(a call takes those\\): `,
        ),
      );
    } finally {
      await agent.close();
    }
    expect(await unresolvedIssues()).toHaveLength(100);
  }, 60_000);

  it('says it takes the first 10,000, takes them in the list order, and says more matched', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(
      browser,
      `${server.url}/organizations/${p.organization}/issues?project=${p.projectSlug}`,
      {
        screenshot: 'issues-bulk-cap',
        cookies: admin.client.jar,
      },
    );
    try {
      const { page } = checked;
      await page.getByLabel('Select all on this page').check();
      await page.getByLabel('Select all 10,001 issues matching this filter').check();
      await Promise.all([page.waitForURL(/issues\/bulk$/), page.getByRole('button', { name: 'Resolve', exact: true }).click()]);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        `Resolve 10,001 issues matching project ${p.projectSlug}, status unresolved?`,
      );
      await expect(page.locator('.notice-warning').textContent()).resolves.toBe(
        "One action takes at most 10,000 issues: this one takes the first 10,000 in the list's order. Once they no longer match the filter (resolved issues leave the unresolved list, say), select all matching again for the next ones; or narrow the filter.",
      );
      await checked.recheck('issues-bulk-cap-confirm');
      await Promise.all([page.waitForURL(/done=resolve/), page.getByRole('button', { name: 'Resolve 10,000 issues' }).click()]);
      await expect(page.getByRole('status').textContent()).resolves.toBe(
        'Resolved 10,000 issues. More matched than one action takes (10,000): once these no longer match the filter, select all matching again for the next ones; or narrow the filter.',
      );
      await checked.recheck('issues-bulk-cap-done');
      // The list's order is last seen, newest first: the oldest one is left.
      expect(await unresolvedIssues()).toEqual([expect.objectContaining({ title: `FloodError: number ${ISSUES}` })]);
    } finally {
      await checked.close();
    }
  }, 120_000);
});

describe('the stored source files of a project with many builds', () => {
  it('shows the newest 200 on the Source maps page, saying of how many; the CLI lists the newest 1,000', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(
      browser,
      `${server.url}/organizations/${p.organization}/projects/${p.projectSlug}/source-maps`,
      { screenshot: 'source-maps-many', cookies: admin.client.jar },
    );
    try {
      const { page } = checked;
      await expect(page.getByText('The 200 newest of 1,001 files.').isVisible()).resolves.toBe(true);
      await expect(page.locator('.map-debug-id code').count()).resolves.toBe(200);
      await expect(page.locator('.map-debug-id code').first().textContent()).resolves.toBe(
        '00000001-0000-4000-8000-000000000000',
      );
    } finally {
      await checked.close();
    }
    const listed = await runCli(['listsourcemaps', '--project', p.projectSlug], server.env);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1_001);
    expect(lines.at(-1)).toBe('… and 1 older file (the newest 1,000 are listed)');
  }, 60_000);
});
