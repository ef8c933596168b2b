// A project whose every event retention has deleted: its issues stay, with their counts, so the
// project's page and verify_installation say the events came and went ("events_expired"), not
// "waiting for the first event", which would send someone to debug an SDK that worked. The
// event is sent two days old to a server that keeps one day; the retention pass a server runs
// as it starts deletes it.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inject } from 'vitest';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { waitForIssue, type IssueJson } from '../../support/issues.ts';
import { connectAgent } from '../../support/mcp-client.ts';
import { envelopeUrlOf, eventEnvelope, newEventId, rawRequest } from '../../support/raw-http.ts';
import {
  eventually,
  initializedDataDir,
  provision,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../../support/standalone-server.ts';

const ONE_DAY = { ERRATA_EVENT_RETENTION_DAYS: '1' };
let server: StandaloneServer;
let browser: Browser;
let p: Provisioned;
let issue: IssueJson;

beforeAll(async () => {
  const dataDir = await initializedDataDir();
  const first = await startServer({ dataDir, env: ONE_DAY });
  try {
    p = await provision(first, 'Quiet App');
    const twoDaysAgo = Date.now() / 1000 - 2 * 86_400;
    const sent = await rawRequest(envelopeUrlOf(first, p), {
      body: eventEnvelope({
        event_id: newEventId(),
        message: 'sent before the quiet spell',
        level: 'error',
        timestamp: twoDaysAgo,
      }),
    });
    expect(sent.status).toBe(200);
    issue = await waitForIssue(first, p, 'sent before the quiet spell');
  } finally {
    expect(await first.stop()).toBe(0);
  }
  server = await startServer({ dataDir, env: ONE_DAY });
  browser = await launchChromium(inject('chromium'));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) await stopAndRemove(server);
});

it('says on the page and to an agent that retention deleted the events, naming the issue that remains', async () => {
  const agent = await connectAgent(server.url, p.token);
  try {
    const verdict = await eventually(async () => {
      const { structured } = await agent.call('verify_installation', { project: p.projectSlug });
      return structured.verdict === 'events_expired' ? structured : undefined;
    }, 'verify_installation saying events_expired');
    expect(verdict).toMatchObject({ eventReceived: true, latestEvent: null, expiredIssue: { shortId: issue.shortId } });
  } finally {
    await agent.close();
  }

  const owner = await signedInPerson(server, 'owner');
  const checked = await openCheckedPage(browser, `${server.url}/organizations/${p.organization}/projects/${p.projectSlug}`, {
    cookies: owner.client.jar,
    screenshot: 'project-events-expired',
  });
  try {
    const box = checked.page.locator('#installation');
    await expect(box.getAttribute('data-verdict')).resolves.toBe('events_expired');
    await expect(box.locator('h2').textContent()).resolves.toBe('Events deleted by retention');
    await expect(box.textContent()).resolves.toMatch(
      /Events came before \(the last 2 d ago, as .+\), and retention has deleted them all/,
    );
    await expect(box.getByRole('link', { name: issue.shortId }).getAttribute('href')).resolves.toBe(
      `/organizations/${p.organization}/issues/${issue.shortId}`,
    );
    // It keeps polling: the next event turns it into "Test event seen" or "Real error seen".
    await expect(box.getAttribute('hx-trigger')).resolves.toBe('every 3s');
    await checked.page.emulateMedia({ colorScheme: 'dark' });
    await checked.recheck('project-events-expired-dark');
  } finally {
    await checked.close();
  }
});
