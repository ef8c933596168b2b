// A search by text reads at most 50,000 records per page in standalone mode, so that one search
// cannot hold the embedded database (and ingest with it) for the whole of retention. Here a
// project holds 52,000 records and one older match: the read API, search_logs through the real
// MCP client and the Logs page in the browser each say where the search stopped, and reading on
// from there finds the match.
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import type { FormClient } from '../../support/dashboard-forms.ts';
import { connectAgent } from '../../support/mcp-client.ts';
import { envelopePoster, envelopeUrlOf } from '../../support/raw-http.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';
import { api, eventually, provision, type Provisioned, type StandaloneServer } from '../../support/standalone-server.ts';

const NEEDLE = `needle ${randomUUID().slice(0, 8)}`;
const LAST = `last of the noise ${randomUUID().slice(0, 8)}`;
const NOISE_RECORDS = 52_000;
const PER_ENVELOPE = 4_000;

let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let member: { client: FormClient };

interface LogsAnswer {
  logs: Array<{ body: string }>;
  nextCursor: string | null;
  searchedTo: string | null;
}

const logsApi = (query: string) =>
  api<LogsAnswer>(server, `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/logs?${query}`, p.token);

beforeAll(async () => {
  ({ server, browser } = await startWithBrowser());
  p = await provision(server, 'Busy');
  member = await signedInPerson(server, 'member');
  const post = envelopePoster(() => envelopeUrlOf(server, p));
  const now = Date.now() / 1000;
  const send = async (items: object[]) => {
    const body = `{}\n{"type":"log","item_count":${items.length}}\n${JSON.stringify({ items })}\n`;
    const response = await post(gzipSync(body), { 'content-encoding': 'gzip' });
    expect(response.status).toBe(200);
  };
  // The match first and older than all of the noise, which is newest first what a search reads.
  await send([{ timestamp: now - 1800, level: 'error', body: NEEDLE }]);
  for (let start = 0; start < NOISE_RECORDS; start += PER_ENVELOPE) {
    await send(
      Array.from({ length: PER_ENVELOPE }, (_, i) => {
        const n = start + i;
        return { timestamp: now - 1200 + n / 100, level: 'info', body: n === NOISE_RECORDS - 1 ? LAST : `served request ${n}` };
      }),
    );
  }
  await eventually(
    async () => ((await logsApi(`query=${encodeURIComponent(LAST)}&limit=1`)).body.logs.length === 1 ? true : undefined),
    'the noise stored',
  );
}, 240_000);
afterAll(() => stopWithBrowser(server, browser));

describe('a search by text over more records than a page reads', () => {
  it('the read API says where it stopped, and its cursor reads on to the match', async () => {
    const first = await logsApi(`query=${encodeURIComponent(NEEDLE)}&sinceMinutes=60&limit=10`);
    expect(first.status).toBe(200);
    expect(first.body.logs).toEqual([]);
    expect(first.body.searchedTo).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await logsApi(`query=${encodeURIComponent(NEEDLE)}&sinceMinutes=60&limit=10&cursor=${first.body.nextCursor}`);
    expect(second.body.logs.map((l) => l.body)).toEqual([NEEDLE]);
    expect(second.body).toMatchObject({ nextCursor: null, searchedTo: null });
  });

  it('search_logs says so to an agent instead of "none", and the cursor finds the match', async () => {
    const agent = await connectAgent(server.url, p.token);
    try {
      const first = await agent.call('search_logs', { project: p.projectSlug, query: NEEDLE });
      expect(first.isError, first.text).toBe(false);
      expect(first.structured).toMatchObject({ count: 0, searchedTo: expect.stringMatching(/^\d{4}-/) });
      expect(first.text).toContain('stopped after reading the records back to');
      expect(first.text).not.toMatch(/raise sinceMinutes/);
      const second = await agent.call('search_logs', {
        project: p.projectSlug,
        query: NEEDLE,
        cursor: first.structured.nextCursor,
      });
      expect(second.structured.untrustedData.logs.map((l: { body: string }) => l.body)).toEqual([NEEDLE]);
      expect(second.structured.searchedTo).toBeUndefined();
    } finally {
      await agent.close();
    }
  });

  it('the Logs page says how far it searched, and Search on finds the match', async () => {
    const path = `/organizations/${p.organization}/logs?${new URLSearchParams({ project: p.projectSlug, query: NEEDLE })}`;
    const checked = await openCheckedPage(browser, `${server.url}${path}`, {
      cookies: member.client.jar,
      screenshot: 'logs-search-stopped',
    });
    try {
      const { page } = checked;
      const status = page.locator('.logs-searched');
      await expect(status.textContent()).resolves.toMatch(
        /^Searched the window's records back to .+ and stopped: a page reads at most 50,000 records\. Search on$/,
      );
      await expect(page.locator('.logs-empty').textContent()).resolves.toBe('No match in the records read so far.');
      await Promise.all([page.waitForURL(/cursor=/), status.getByRole('link', { name: 'Search on' }).click()]);
      await page.waitForLoadState('load');
      await expect(page.locator('summary', { hasText: NEEDLE }).count()).resolves.toBe(1);
      expect(await page.locator('.logs-searched').count()).toBe(0);
      await checked.recheck('logs-search-found-on');
    } finally {
      await checked.close();
    }
  });
});
